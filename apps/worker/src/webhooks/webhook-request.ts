import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isDeliverableAddress } from '@mailer/domain';

/** A 2xx within this long is success (docs/api-decisions.md, "Webhooks"). */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export type WebhookResponse = { status: number } | { error: string };

/**
 * Resolves like the system does, then refuses the connection unless every address the
 * name resolves to may be reached: the URL is the integrator's, so it must not lead into
 * the operator's private network, whatever DNS answers now (checked at connection time).
 */
const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !isDeliverableAddress(a.address, allowPrivate));
      if (refused) return callback(Object.assign(new Error('the webhook host resolves to a non-public address'), { code: 'EADDRNOTPUBLIC' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

/**
 * POSTs a webhook body. Redirects are not followed (a 3xx is a failure like any non-2xx);
 * the answer's body is read and dropped; the whole exchange is bounded by the timeout.
 */
export function postWebhook(url: string, body: string, headers: Record<string, string>, allowPrivate: boolean): Promise<WebhookResponse> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) && !isDeliverableAddress(host, allowPrivate)) return Promise.resolve({ error: 'the webhook address is not public' });
  if (target.protocol !== 'https:' && !(allowPrivate && target.protocol === 'http:')) return Promise.resolve({ error: 'the webhook URL is not https' });
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'mailer-webhooks/1' },
        lookup: guardedLookup(allowPrivate),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.once('error', (error) => resolve({ error: error.message }));
      },
    );
    request.once('error', (error) => resolve({ error: error.message }));
    request.end(body);
  });
}
