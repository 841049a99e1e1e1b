import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids';

export const SENDING_KEY_PREFIX = 'svc_live_';
/** The account's test sending key: its messages are simulated (docs/api-decisions.md, "Test mode"). */
export const TEST_SENDING_KEY_PREFIX = 'svc_test_';
export const MANAGEMENT_KEY_PREFIX = 'mgmt_live_';

export const SCOPES = [
  'domains:read',
  'domains:write',
  'senders:read',
  'senders:write',
  'webhooks:read',
  'webhooks:write',
  'suppressions:read',
  'suppressions:write',
  'templates:read',
  'templates:write',
  /** Received mail (docs/api-decisions.md, "Inbound mail"); `inbound:write` manages the routes. */
  'inbound:read',
  'inbound:write',
] as const;
export type Scope = (typeof SCOPES)[number];
export type KeyKind = 'sending' | 'management';

const KEY_SHAPE = /^(svc_live_|svc_test_|mgmt_live_)[0-9A-Za-z]{32,128}$/;

/** A new key; `test` only for a sending key. */
export function generateApiKey(kind: KeyKind, test = false): string {
  const prefix = kind === 'management' ? MANAGEMENT_KEY_PREFIX : test ? TEST_SENDING_KEY_PREFIX : SENDING_KEY_PREFIX;
  return prefix + randomBase62(40);
}

/** Keys are stored only as this hash; they carry 238 random bits, so a fast hash is enough. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** Constant-time comparison of a presented key's hash with a stored one. */
export function apiKeyMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKey(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A `:write` scope also grants the matching `:read` (docs/api-decisions.md, "Keys and accounts"). */
export function grantsScope(granted: readonly string[], needed: Scope): boolean {
  if (granted.includes(needed)) return true;
  return needed.endsWith(':read') && granted.includes(needed.replace(/:read$/, ':write'));
}

export function parseScopes(list: string): Scope[] | undefined {
  const scopes = [...new Set(list.split(',').map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0 || !scopes.every((s): s is Scope => (SCOPES as readonly string[]).includes(s))) return undefined;
  return scopes;
}
