/**
 * HTTP Basic credentials in a postmark-format endpoint's URL (`https://user:password@host/…`, as
 * Postmark takes them): stored apart from the URL and sealed, sent as `Authorization: Basic`,
 * and shown with the password masked (docs/api-decisions.md, "Webhooks").
 */

/** What a GET shows in place of the password. */
export const WEBHOOK_PASSWORD_MASK = '********';

/** The purpose Basic credentials are sealed under, as the signing secrets are (see seal). */
export const WEBHOOK_CREDENTIALS_SEAL_PURPOSE = 'webhook-credentials';

/** The URL without its credentials, and the credentials as `user:password` (decoded), or null when it has none. */
export function splitWebhookCredentials(text: string): { url: string; credentials: string | null } {
  const url = new URL(text);
  if (!url.username && !url.password) return { url: text, credentials: null };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, credentials };
}

/** The URL as shown: with the user name, and the mask for a password. */
export function shownWebhookUrl(url: string, credentials: string | null): string {
  if (credentials === null) return url;
  const shown = new URL(url);
  const colon = credentials.indexOf(':');
  shown.username = encodeURIComponent(credentials.slice(0, colon));
  if (colon < credentials.length - 1) shown.password = WEBHOOK_PASSWORD_MASK;
  return shown.href;
}

/** The `Authorization` header for the credentials (RFC 7617). */
export const basicAuthorization = (credentials: string): string => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
