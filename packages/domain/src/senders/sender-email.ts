import { domainToASCII } from 'node:url';

// RFC 5322 atext, and the RFC 5321 quoted string (qtextSMTP / quoted-pairSMTP).
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const QUOTED_STRING = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_LOCAL_OCTETS = 64;
const MAX_ADDRESS_OCTETS = 254;

/**
 * A mail domain as A-labels in lower case (UTS #46 mapping, so `Bücher.DE` becomes
 * `xn--bcher-kva.de`), or undefined when it is not a host name of at least two
 * letter-digit-hyphen labels.
 */
export function normalizeMailDomain(domain: string): string | undefined {
  const ascii = domainToASCII(domain).toLowerCase();
  if (ascii.length === 0 || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LDH_LABEL.test(label))) return undefined;
  return ascii;
}

export type SenderEmailResult = { ok: true; email: string; emailKey: string } | { ok: false; message: string };

/**
 * A sender address for the domain named `domainName` (an A-label, lower case): an
 * RFC 5321 mailbox whose domain part, once normalized, is that name. The local part is
 * kept exactly as given (ASCII only: SMTPUTF8 is not offered); the domain part is
 * stored normalized. `emailKey` is the whole address in lower case, the key under which
 * senders are unique per domain and `from` addresses are matched.
 */
export function parseSenderEmail(input: string, domainName: string): SenderEmailResult {
  const invalid: SenderEmailResult = { ok: false, message: 'must be an email address such as hello@example.com' };
  const trimmed = input.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return invalid;
  const local = trimmed.slice(0, at);
  if (local.length > MAX_LOCAL_OCTETS || !(DOT_ATOM.test(local) || QUOTED_STRING.test(local))) return invalid;
  const domain = normalizeMailDomain(trimmed.slice(at + 1));
  if (!domain) return invalid;
  if (domain !== domainName.toLowerCase()) {
    return { ok: false, message: `the domain part must be ${domainName}, the domain the sender is created under` };
  }
  const email = `${local}@${domain}`;
  if (email.length > MAX_ADDRESS_OCTETS) return { ok: false, message: `must be at most ${MAX_ADDRESS_OCTETS} characters` };
  return { ok: true, email, emailKey: email.toLowerCase() };
}
