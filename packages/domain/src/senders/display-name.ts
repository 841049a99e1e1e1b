/** Bounds of a sender's display name (docs/api-decisions.md, "Senders"). */
export const DISPLAY_NAME_MAX_SCALARS = 128;
export const DISPLAY_NAME_MAX_BYTES = 256;

export type DisplayNameResult = { ok: true; value: string } | { ok: false; problems: string[] };

/**
 * Trims as `String.prototype.trim` does (Unicode white space at both ends), then checks
 * the rest: nonempty, no Unicode Cc control character (CR, LF, NUL, TAB, U+0085 …), at
 * most 128 Unicode scalar values and 256 UTF-8 bytes. Lengths count code points, never
 * UTF-16 units, and the text is kept as given otherwise (no NFC: a combining mark is a
 * scalar of its own). Every problem found is reported.
 */
export function normalizeDisplayName(input: string): DisplayNameResult {
  const value = input.trim();
  if (value.length === 0) return { ok: false, problems: ['must not be empty or only white space'] };
  const problems: string[] = [];
  if (/\p{Cc}/u.test(value)) problems.push('must not contain control characters');
  // A lone surrogate is not a Unicode scalar value and has no UTF-8 encoding.
  if (/\p{Cs}/u.test(value)) problems.push('must be well-formed Unicode (no unpaired surrogates)');
  const scalars = [...value].length;
  if (scalars > DISPLAY_NAME_MAX_SCALARS) {
    problems.push(`must be at most ${DISPLAY_NAME_MAX_SCALARS} characters (has ${scalars})`);
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > DISPLAY_NAME_MAX_BYTES) {
    problems.push(`must be at most ${DISPLAY_NAME_MAX_BYTES} bytes in UTF-8 (has ${bytes})`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
