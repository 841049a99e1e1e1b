import { createHash } from 'node:crypto';

export const IDEMPOTENCY_KEY_MAX_CHARS = 255;
/** A key stays live this long from the first accepted request (then it may be used anew). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** 1..255 characters (Unicode scalar values). */
export function isValidIdempotencyKey(key: string | undefined): key is string {
  if (key === undefined || key.length === 0) return false;
  return [...key].length <= IDEMPOTENCY_KEY_MAX_CHARS;
}

/** JSON with object members sorted by name at every depth: equal for requests that parse to the same value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What "the same request" means for an Idempotency-Key: the SHA-256 of its canonical JSON. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
