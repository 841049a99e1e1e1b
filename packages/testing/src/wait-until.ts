/**
 * Resolves once `condition` holds, asking every `everyMs`; throws naming `what` past
 * `timeoutMs`. For what a test cannot await directly: another process, a socket's peer.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
