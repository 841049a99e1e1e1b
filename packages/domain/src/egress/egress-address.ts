import { isIP } from 'node:net';

/** How a pool, an address and its HELO name are written (docs/api-decisions.md, "Providers and egress pools"). */
export const POOL_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** A fully qualified host name, lower case, at least two labels (as the migration's check holds it). */
const HELO_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** The pool an account without one of its own sends from, when the operator made it. */
export const DEFAULT_POOL = 'default';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export function checkPoolName(raw: string): Checked<string> {
  const name = raw.trim().toLowerCase();
  return POOL_NAME.test(name) ? { ok: true, value: name } : { ok: false, message: 'a pool name is 1 to 63 lower-case letters, digits and dashes' };
}

export function checkHeloName(raw: string): Checked<string> {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  return HELO_NAME.test(name) && name.length <= 253 ? { ok: true, value: name } : { ok: false, message: 'a HELO name is a fully qualified host name such as mta1.example.com' };
}

/** One IPv4 or IPv6 address (no range): the local address a connection is opened from. */
export function checkSourceAddress(raw: string): Checked<string> {
  const address = raw.trim().toLowerCase();
  return isIP(address) ? { ok: true, value: address } : { ok: false, message: 'a source address is one IPv4 or IPv6 address' };
}

/** What DNS says of an address and its HELO name: the address's PTR names, and the name's A/AAAA addresses. */
export interface HeloIdentityAnswers {
  ptrNames: readonly string[];
  heloAddresses: readonly string[];
}

const sameName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/**
 * Whether the HELO name is the address's forward-confirmed reverse DNS, as receivers check it:
 * a PTR of the address names it, and the name resolves back to the address. Null when it is;
 * otherwise what is wrong, for the operator.
 */
export function heloIdentityProblem(address: string, heloName: string, answers: HeloIdentityAnswers): string | null {
  if (!answers.ptrNames.some((name) => sameName(name, heloName))) {
    const found = answers.ptrNames.length > 0 ? answers.ptrNames.join(', ') : 'no PTR record';
    return `the PTR of ${address} does not name ${heloName} (found: ${found})`;
  }
  if (!answers.heloAddresses.some((a) => a.toLowerCase() === address.toLowerCase())) {
    return `${heloName} does not resolve back to ${address}`;
  }
  return null;
}

/** The 16-bit groups of an IPv6 address, written in full (`::` expanded, a trailing dotted IPv4 part as two groups). */
function ipv6Groups(address: string): string[] {
  const parts = address.toLowerCase().split(':');
  const last = parts.at(-1)!;
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    parts.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const gap = parts.indexOf('');
  if (gap < 0) return parts;
  const head = parts.slice(0, gap).filter(Boolean);
  const tail = parts.slice(gap).filter(Boolean);
  return [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
}

/** The name of an address's PTR record (RFC 1035 section 3.5, RFC 3596 section 2.5): `…in-addr.arpa` or `…ip6.arpa`. */
export function reverseDnsName(address: string): string {
  if (isIP(address) === 4) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  const nibbles = ipv6Groups(address).map((g) => g.padStart(4, '0')).join('');
  return `${[...nibbles].reverse().join('.')}.ip6.arpa`;
}
