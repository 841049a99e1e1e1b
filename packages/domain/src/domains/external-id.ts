import type { Normalized } from './domain-name';

const MAX_SCALARS = 255;

/**
 * An account's own identifier for a domain (docs/api-decisions.md, "Domains"): trimmed as
 * String.prototype.trim does, NFC-normalized, 1..255 Unicode scalar values, no control
 * characters (category Cc). Lone surrogates are not scalar values and are refused too.
 */
export function normalizeExternalId(input: string): Normalized<string> {
  if (/\p{Cs}/u.test(input)) return { ok: false, message: 'must be valid Unicode text (no lone surrogates)' };
  const value = input.trim().normalize('NFC');
  if (value.length === 0) return { ok: false, message: 'must not be empty after trimming' };
  if ([...value].length > MAX_SCALARS) return { ok: false, message: `must be at most ${MAX_SCALARS} characters` };
  if (/\p{Cc}/u.test(value)) return { ok: false, message: 'must not contain control characters' };
  return { ok: true, value };
}
