import { normalizeDisplayName } from '../senders/display-name';
import { parseMailbox, type Mailbox } from '../senders/sender-email';

export interface FromField {
  mailbox: Mailbox;
  /** The display name the request gave, or null (the sender's is used then). */
  displayName: string | null;
}

export type FromFieldResult = { ok: true; value: FromField } | { ok: false; problems: string[] };

// CR, LF and NUL would let a display name start a header of its own.
const HEADER_BREAKING = /[\r\n\0]/;
// Characters RFC 5322 allows in an unquoted phrase besides atext: white space and '.' (obs-phrase).
const PLAIN_PHRASE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ .-]+$/;

function unquote(quoted: string): string | undefined {
  const inner = quoted.slice(1, -1);
  if (/(^|[^\\])(\\\\)*"/.test(inner)) return undefined;
  return inner.replace(/\\(.)/gs, '$1');
}

function displayNameProblems(name: string): { value: string | null; problems: string[] } {
  if (name.trim() === '') return { value: null, problems: [] };
  const checked = normalizeDisplayName(name);
  return checked.ok ? { value: checked.value, problems: [] } : { value: null, problems: checked.problems.map((p) => `display name ${p}`) };
}

/**
 * `addr@domain`, `Display Name <addr@domain>` or `"Quoted, Name" <addr@domain>`. The
 * display name follows the sender display_name rules (trimmed, at most 128 characters and
 * 256 UTF-8 bytes, no control characters); an empty one counts as none.
 */
export function parseFromField(input: string): FromFieldResult {
  if (HEADER_BREAKING.test(input)) return { ok: false, problems: ['must not contain CR, LF or NUL (header injection)'] };
  const text = input.trim();
  if (!text.endsWith('>')) {
    const mailbox = parseMailbox(text);
    return mailbox ? { ok: true, value: { mailbox, displayName: null } } : { ok: false, problems: ['not a valid email address'] };
  }
  const open = text.lastIndexOf('<');
  if (open < 0) return { ok: false, problems: ['not a valid email address or "Display Name <address>"'] };
  let name = text.slice(0, open).trim();
  if (name.startsWith('"')) {
    const unquoted = name.length >= 2 && name.endsWith('"') ? unquote(name) : undefined;
    if (unquoted === undefined) return { ok: false, problems: ['display name has an unbalanced quote'] };
    name = unquoted;
  } else if (/["<>]/.test(name)) {
    return { ok: false, problems: ['display name containing quotes or angle brackets must be a quoted string'] };
  }
  const problems: string[] = [];
  const displayName = displayNameProblems(name);
  problems.push(...displayName.problems);
  const address = text.slice(open + 1, -1);
  const mailbox = parseMailbox(address);
  if (!mailbox) problems.push('not a valid email address inside <…>');
  if (problems.length > 0 || !mailbox) return { ok: false, problems };
  return { ok: true, value: { mailbox, displayName: displayName.value } };
}

/** `Name <addr>` (quoted when the name needs it) or the bare address: how `from` is shown back. */
export function formatMailbox(address: string, displayName: string | null): string {
  if (!displayName) return address;
  const phrase = PLAIN_PHRASE.test(displayName) ? displayName : `"${displayName.replace(/(["\\])/g, '\\$1')}"`;
  return `${phrase} <${address}>`;
}
