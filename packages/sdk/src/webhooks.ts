import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** How far the signed timestamp may be from now, in seconds (300 unless given). */
  toleranceSeconds?: number;
  now?: Date;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}

/**
 * Verifies a Standard Webhooks signature (https://www.standardwebhooks.com/): `webhook-signature` must hold a
 * `v1,<base64>` HMAC-SHA256, keyed by the base64 secret after `whsec_`, of `${webhook-id}.${webhook-timestamp}.${body}`,
 * and the timestamp must be within the tolerance. `body` is the raw request body, exactly as received.
 * Returns the parsed payload; throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(secret: string, headers: HeaderSource, body: string, options: VerifyWebhookOptions = {}): unknown {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!(Math.abs(now - seconds) <= (options.toleranceSeconds ?? 300))) throw new WebhookVerificationError('timestamp outside the tolerance');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(body) as unknown;
}
