/**
 * Variables for a preview when no real ones are at hand (the operator console): every name the
 * template uses gets a placeholder `‹name›`, dotted names nested objects, so that each part
 * renders once through every section (a placeholder is truthy) and shows where each value goes.
 */
export function sampleVariables(names: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const name of names) {
    const parts = name.split('.');
    let node = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        if (!Object.hasOwn(node, part)) node[part] = `‹${name}›`;
        return;
      }
      const next = node[part];
      node = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : (node[part] = {}) as Record<string, unknown>;
    });
  }
  return root;
}
