import { scalarLength } from './email-limits';

/** Tags of a message (docs/api-decisions.md, "Send API additions"). */
export const MAX_TAGS = 10;
export const TAG_KEY = /^[A-Za-z0-9_-]{1,64}$/;
export const TAG_VALUE_MAX_CHARS = 256;

/** Problems of one tag, keyed by what they are about; the value must already be a string. */
export function tagProblems(key: string, value: string): { on: 'key' | 'value'; message: string }[] {
  const problems: { on: 'key' | 'value'; message: string }[] = [];
  if (!TAG_KEY.test(key)) problems.push({ on: 'key', message: 'tag names are 1 to 64 of A-Z a-z 0-9 _ -' });
  if (scalarLength(value) > TAG_VALUE_MAX_CHARS) problems.push({ on: 'value', message: `must be at most ${TAG_VALUE_MAX_CHARS} characters` });
  if (/\p{Cc}/u.test(value)) problems.push({ on: 'value', message: 'must not contain control characters' });
  return problems;
}

/**
 * The `tag` filter of GET /v1/emails: `key:value`, split at the first colon (a key has
 * none), or null when it is not one.
 */
export function parseTagFilter(input: string): { key: string; value: string } | null {
  const colon = input.indexOf(':');
  if (colon < 0) return null;
  const key = input.slice(0, colon);
  const value = input.slice(colon + 1);
  return tagProblems(key, value).length === 0 ? { key, value } : null;
}
