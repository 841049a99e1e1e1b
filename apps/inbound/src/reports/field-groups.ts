/** A group's fields, names in lower case; a repeated field keeps its first value. */
export type Fields = Map<string, string>;

/** How much of a report part is read: its first `bytes`, and in them the first `groups` field groups. */
export interface GroupLimits {
  groups: number;
  bytes: number;
}

const isFolded = (line: string) => line.startsWith(' ') || line.startsWith('\t');

/**
 * One group of RFC 822-style fields. Folded lines are unfolded as mailparser's header parsing
 * does (the line break and the white space after it become one space); a line without a
 * colon is not a field.
 */
function readFields(lines: readonly string[]): Fields {
  const fields: Fields = new Map();
  let name: string | undefined;
  let value = '';
  const keep = () => {
    if (name && !fields.has(name)) fields.set(name, value.trim());
  };
  for (const line of lines) {
    if (isFolded(line)) {
      value += ` ${line.trimStart()}`;
      continue;
    }
    keep();
    const colon = line.indexOf(':');
    name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : undefined;
    value = colon > 0 ? line.slice(colon + 1) : '';
  }
  keep();
  return fields;
}

/**
 * The field groups of a report part: a delivery-status body is groups separated by blank
 * lines (RFC 3464 section 2.1), the per-message fields then one group per recipient; a
 * feedback report and a returned message's header start with one. Only the part's first
 * `limits.bytes` are read, and in them the first `limits.groups` groups (a group the byte
 * bound cuts is dropped): the work is linear in what is read, whatever the part holds
 * (docs/api-decisions.md, "Return path").
 */
export function fieldGroups(content: Buffer, limits: GroupLimits): Fields[] {
  const cut = content.length > limits.bytes;
  const text = content.subarray(0, limits.bytes).toString('utf8');
  const groups: Fields[] = [];
  let lines: string[] = [];
  let start = 0;
  while (start < text.length && groups.length < limits.groups) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, text[end - 1] === '\r' ? end - 1 : end);
    start = end + 1;
    if (line.trim() !== '') lines.push(line);
    else if (lines.length > 0) {
      groups.push(readFields(lines));
      lines = [];
    }
  }
  if (!cut && lines.length > 0 && groups.length < limits.groups) groups.push(readFields(lines));
  return groups;
}
