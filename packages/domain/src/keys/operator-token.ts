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

/**
 * Whether an Authorization header carries the operator token, as `Bearer <token>` or as
 * HTTP Basic with the token as password (so a browser can open the dashboard). With no
 * token configured, nothing is authorized.
 */
export function isOperatorAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (!token || !header) return false;
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  let presented: string | undefined;
  if (/^bearer$/i.test(scheme)) presented = value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    presented = decoded.slice(decoded.indexOf(':') + 1);
  }
  // Compare digests: constant time whatever the lengths.
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}
