import { hostToAscii } from '../domains/domain-name';

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
  const ascii = hostToAscii(domain).toLowerCase();
  if (ascii.length === 0 || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LDH_LABEL.test(label))) return undefined;
  return ascii;
}

/** An RFC 5321 mailbox: the local part as given, the domain part normalized. */
export interface Mailbox {
  local: string;
  /** Lower-case A-labels. */
  domain: string;
  /** `local@domain`. */
  address: string;
  /**
   * The whole address in lower case: senders are unique per domain under this key and
   * `from` addresses are matched by it (case-insensitively: docs/api-decisions.md, "Senders").
   */
  key: string;
}

/** The key addresses are compared by: the whole address in lower case (see Mailbox.key). */
export const addressKey = (address: string): string => address.toLowerCase();

/**
 * Whether nodemailer carries a quoted local part as given (found by probing its SMTP
 * connection and mail composer, docs/api-decisions.md "Emails"): its SMTP connection refuses
 * the whole envelope when an address holds `<` or `>`, and its address parser, which writes
 * the To and Cc headers, drops white space at either end of the quoted text and the quotes
 * of a text that begins and ends with `"`, naming another mailbox. Anything else it keeps.
 */
function isSendableQuotedLocalPart(local: string): boolean {
  if (/[<>]/.test(local)) return false;
  const text = local.slice(1, -1).replace(/\\(.)/g, '$1');
  if (/^ | $/.test(text)) return false;
  return !(text.length >= 2 && text.startsWith('"') && text.endsWith('"'));
}

/**
 * Parses a sender address: a dot-atom or quoted local part of at most 64 octets (ASCII
 * only: SMTPUTF8 is not offered) and a host name, IDN accepted, normalized to A-labels.
 * A quoted local part must also be one the SMTP layer sends as given. Surrounding white
 * space is ignored. Undefined when it is not such a mailbox.
 */
export function parseMailbox(input: string): Mailbox | undefined {
  const trimmed = input.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = trimmed.slice(0, at);
  if (local.length > MAX_LOCAL_OCTETS) return undefined;
  if (!DOT_ATOM.test(local) && !(QUOTED_STRING.test(local) && isSendableQuotedLocalPart(local))) return undefined;
  const domain = normalizeMailDomain(trimmed.slice(at + 1));
  if (!domain) return undefined;
  const address = `${local}@${domain}`;
  if (address.length > MAX_ADDRESS_OCTETS) return undefined;
  return { local, domain, address, key: addressKey(address) };
}

/** A sender's domain part must equal the domain it is created under (docs/api-decisions.md, "Senders"), compared as A-labels. */
export function mailboxBelongsTo(mailbox: Mailbox, domainName: string): boolean {
  return mailbox.domain === normalizeMailDomain(domainName);
}
