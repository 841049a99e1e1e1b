import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * What operator routes (/metrics, /admin/queues, the daemon's /metrics) answer, with 503 and the
 * error code `operator_token_not_configured`, on a server without OPERATOR_TOKEN
 * (docs/api-decisions.md, "Operations").
 */
export const OPERATOR_TOKEN_NOT_CONFIGURED_MESSAGE =
  'OPERATOR_TOKEN is not configured on this server, so its operator routes (/metrics, /admin/queues) are disabled; ' +
  'set OPERATOR_TOKEN (at least 16 characters) to use them.';

const digest = (value: string) => createHash('sha256').update(value).digest();

// A scheme and one credential (RFC 9110 11.4): anything after the credential makes the header malformed.
const CREDENTIALS = /^(\S+) +(\S+)$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The password of HTTP Basic credentials (RFC 7617: base64 of `user:password`), or undefined when malformed. */
function basicPassword(credentials: string): string | undefined {
  if (!BASE64.test(credentials)) return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/**
 * Whether an Authorization header carries the operator token, exactly as `Bearer <token>` or
 * as HTTP Basic with the token as password (so a browser can open the dashboard). With no
 * token configured, nothing is authorized.
 */
export function isOperatorAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (!token || !header) return false;
  const [, scheme = '', credentials = ''] = CREDENTIALS.exec(header.trim()) ?? [];
  let presented: string | undefined;
  if (/^bearer$/i.test(scheme)) presented = credentials;
  if (/^basic$/i.test(scheme)) presented = basicPassword(credentials);
  return presented !== undefined && isOperatorToken(presented, token);
}

/** Whether `presented` is the operator token (the console's login form); nothing is, with no token configured. */
export function isOperatorToken(presented: string, token: string | undefined): boolean {
  // Compare digests: constant time whatever the lengths.
  return token !== undefined && token !== '' && timingSafeEqual(digest(presented), digest(token));
}
