/**
 * Splits a comma-separated address list (Postmark's To, Cc, Bcc and ReplyTo:
 * `Ann <ann@example.org>, "Doe, Jo" <jo@example.org>`) into its entries, trimmed. A comma
 * inside a quoted display name or inside angle brackets does not split. Empty entries are
 * kept as `''` so that the rules of a single address refuse them by position.
 */
export function splitAddressList(list: string): string[] {
  const entries: string[] = [];
  let current = '';
  let quoted = false;
  let angle = false;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i]!;
    if (quoted && ch === '\\' && i + 1 < list.length) {
      current += ch + list[++i];
      continue;
    }
    if (ch === '"' && !angle) quoted = !quoted;
    else if (ch === '<' && !quoted) angle = true;
    else if (ch === '>' && !quoted) angle = false;
    else if (ch === ',' && !quoted && !angle) {
      entries.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  entries.push(current.trim());
  return entries.length === 1 && entries[0] === '' ? [] : entries;
}
