import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getDomain, getPublicSuffix } from 'tldts';

export type Normalized<T> = { ok: true; value: T } | { ok: false; message: string };

const LDH_LABEL = /^[a-z0-9-]+$/;
/** Longer inputs are refused before IDN processing; no valid name comes near it. */
const MAX_INPUT_LENGTH = 1024;
const ICANN_ONLY = { allowPrivateDomains: false } as const;
// The URL host parser behind domainToASCII percent-decodes and stops at `/`, `?`, `#`
// (`example.com/evil` would become `example.com`): only these ASCII characters may reach
// it; non-ASCII is left to UTS #46.
const ASCII_OUTSIDE_LDH = /[\x00-\x2c\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/;

/** UTS #46 to A-labels, or '' when the input holds ASCII that no host name may contain or is refused by UTS #46. */
export function hostToAscii(host: string): string {
  return ASCII_OUTSIDE_LDH.test(host) ? '' : domainToASCII(host);
}

function labelProblem(label: string): string | undefined {
  if (label.length === 0) return 'must not contain empty labels';
  if (label.length > 63) return `label "${label.slice(0, 20)}…" is longer than 63 characters`;
  if (!LDH_LABEL.test(label)) return 'may contain only letters, digits and hyphens in each label';
  if (label.startsWith('-') || label.endsWith('-')) return 'labels must not begin or end with a hyphen';
  return undefined;
}

/** Problems of an ASCII name in LDH form, in the order a reader would fix them. */
function hostNameProblem(name: string): string | undefined {
  const labels = name.split('.');
  if (labels.length < 2) return 'must have at least two labels, e.g. example.com';
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem) return problem;
  }
  if (name.length > 253) return 'must be at most 253 characters';
  if (/^\d+$/.test(labels[labels.length - 1]!)) return 'must not end in an all-numeric label';
  return undefined;
}

/**
 * A sending domain as stored (docs/api-decisions.md, "Domains"): IDN converted to A-labels (UTS #46,
 * as WHATWG URLs do), lower case, one trailing dot removed; letters, digits and hyphens
 * per label; at least two labels; not an IP literal; not itself a public suffix of the
 * ICANN section of the Public Suffix List (`co.uk`, `com`).
 */
export function normalizeDomainName(input: string): Normalized<string> {
  const trimmed = input.trim();
  if (trimmed.length === 0) return { ok: false, message: 'must not be empty' };
  if (trimmed.length > MAX_INPUT_LENGTH) return { ok: false, message: 'must be at most 253 characters' };
  const withoutDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  const ipMessage = 'must be a domain name, not an IP address';
  if (isIP(withoutDot.replace(/^\[(.*)\]$/, '$1'))) return { ok: false, message: ipMessage };

  // WHATWG's domainToASCII also rewrites IPv4 shorthands (`0x7f.1` -> `127.0.0.1`) and answers '' for anything it refuses.
  const ascii = hostToAscii(withoutDot).replace(/\.$/, '');
  if (isIP(ascii)) return { ok: false, message: ipMessage };
  if (ascii === '') {
    if (/[^\x20-\x7e]/.test(withoutDot) && !/\s/.test(withoutDot)) return { ok: false, message: 'is not a valid internationalized domain name' };
    return { ok: false, message: hostNameProblem(withoutDot.toLowerCase()) ?? 'contains a label that is not valid punycode (xn--…)' };
  }
  const problem = hostNameProblem(ascii);
  if (problem) return { ok: false, message: problem };
  if (getPublicSuffix(ascii, ICANN_ONLY) === ascii) {
    return { ok: false, message: `${ascii} is a public suffix; use a domain registered under it` };
  }
  return { ok: true, value: ascii };
}

/**
 * The organizational domain of RFC 7489 section 3.2: the public suffix (ICANN section)
 * plus one label. Names under an unlisted TLD fall back to the last two labels.
 */
export function organizationalDomain(name: string): string {
  return getDomain(name, ICANN_ONLY) ?? name;
}
