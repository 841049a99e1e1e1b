import ipaddr from 'ipaddr.js';
import { isDeliverableAddress } from '../delivery/mx-order';
import type { WebhookFormat } from './webhook-formats';

/** Basic credentials are decoded to be sent: their percent-encoding must decode, and a user name cannot hold the colon that ends it. */
function credentialsProblem(url: URL): string | null {
  try {
    if (decodeURIComponent(url.username).includes(':')) return 'must not have a colon in its user name';
    decodeURIComponent(url.password);
  } catch {
    return 'must have valid percent-encoding in its credentials';
  }
  return null;
}

/** What lifts a refusal meant for production: a laptop's receiver is http:// on a private address. */
const PRIVATE_HINT = '; http:// and private or local hosts are taken with WEBHOOK_ALLOW_PRIVATE=true (development only)';

/**
 * Why a webhook URL is refused, or null: https only (http too with `allowPrivate`), no
 * credentials but HTTP Basic ones for the postmark format, and a literal IP address must be public.
 * A refusal `allowPrivate` would lift names WEBHOOK_ALLOW_PRIVATE. A host name is checked again at
 * connection time, for every address it resolves to (docs/api-decisions.md, "Webhooks").
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean, format: WebhookFormat = 'default'): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'must be an https:// or http:// URL' : `must be an https:// URL${PRIVATE_HINT}`;
  }
  if ((url.username || url.password) && format !== 'postmark') return 'must not carry credentials (only a postmark-format endpoint takes HTTP Basic credentials)';
  const credentials = credentialsProblem(url);
  if (credentials) return credentials;
  if (text.length > 2048) return 'must be at most 2048 characters';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) && !isDeliverableAddress(host, allowPrivate)) return `must not point at a private, loopback or reserved address${allowPrivate ? '' : PRIVATE_HINT}`;
  if (!ipaddr.isValid(host) && !host.includes('.') && !allowPrivate) return `must name a public host${PRIVATE_HINT}`;
  return null;
}
