/**
 * A TXT value as people paste it: some DNS consoles keep the zone-file quotes, so
 * `"v=DKIM1; k=rsa; " "p=MII…"` is read as its quoted strings joined.
 */
export function unquoteTxt(value: string): string {
  const trimmed = value.trim();
  if (!/^(?:"(?:[^"\\]|\\.)*"\s*)+$/.test(trimmed)) return trimmed;
  return [...trimmed.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1')).join('');
}

/**
 * A `tag=value; tag=value` list (RFC 6376 section 3.2, also used by DMARC), tag names
 * lower-cased, whitespace around tags and values ignored, in the order written.
 * Undefined when a segment is not `tag=value` or a tag repeats.
 */
export function parseTagList(value: string): [string, string][] | undefined {
  const tags: [string, string][] = [];
  const segments = value.split(';');
  for (const [index, segment] of segments.entries()) {
    if (segment.trim() === '') {
      if (index === segments.length - 1) continue;
      return undefined;
    }
    const match = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(.*)$/s.exec(segment);
    if (!match) return undefined;
    const name = match[1]!.toLowerCase();
    if (tags.some(([seen]) => seen === name)) return undefined;
    tags.push([name, match[2]!.trim()]);
  }
  return tags;
}
