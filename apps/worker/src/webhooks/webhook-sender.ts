import { Webhook } from 'standardwebhooks';
import { Batcher, claimWebhookDeliveries, recordWebhookAttempts, withinStall, type LeasedWebhook, type WebhookAttemptResult } from '@mailer/operations';
import {
  basicAuthorization,
  endpointGivesUp,
  nextWebhookAttempt,
  unseal,
  WEBHOOK_CREDENTIALS_SEAL_PURPOSE,
  WEBHOOK_SECRET_SEAL_PURPOSE,
  webhookPayload,
  webhookSignatureHeaders,
} from '@mailer/domain';
import type { WorkerDependencies } from '../container';
import { attachmentContentReader } from './attachment-content-reader';
import { postWebhook, WEBHOOK_TIMEOUT_MS } from './webhook-request';

/** Requests in flight to one endpoint from one daemon: a slow endpoint holds at most these. */
const PER_ENDPOINT = 8;
/** How often an idle sender looks for due deliveries. */
const POLL_MS = 250;
/** A lease outlives the request it covers. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS * 4;

export interface WebhookSender {
  /** Stops claiming and waits for the requests in flight and their records. */
  stop(): Promise<void>;
}

type Dependencies = Pick<WorkerDependencies, 'db' | 'config' | 'logger' | 'now'>;

/** `webhook-signature`: one `v1,…` per live secret, space-separated (the newest first). */
function signatures(deps: Dependencies, leased: LeasedWebhook, at: Date, body: string): string {
  return leased.secretsSealed
    .map((sealed) => new Webhook(unseal(deps.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, sealed)).sign(leased.event.id, at, body))
    .join(' ');
}

/**
 * The headers of one attempt: the Standard Webhooks id, timestamp and signatures under each of
 * the format's prefixes, and HTTP Basic credentials when the endpoint has them.
 */
function requestHeaders(deps: Dependencies, leased: LeasedWebhook, at: Date, body: string): Record<string, string> {
  const signed = { id: leased.event.id, timestamp: String(Math.floor(at.getTime() / 1000)), signature: signatures(deps, leased, at, body) };
  const headers: Record<string, string> = {};
  for (const prefix of webhookSignatureHeaders(leased.format)) {
    for (const [name, value] of Object.entries(signed)) headers[`${prefix}-${name}`] = value;
  }
  if (leased.credentialsSealed !== null) {
    headers.authorization = basicAuthorization(unseal(deps.config.encryptionKey, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, leased.credentialsSealed));
  }
  return headers;
}

/**
 * Sends webhooks from the outbox: leases due deliveries (PostgreSQL is the queue: any
 * number of daemons share it, and a delivery whose sender died is leased again when its
 * lease expires), POSTs each in its endpoint's format (webhookPayload), signed per Standard Webhooks, and records the outcome through
 * the retry schedule (docs/api-decisions.md, "Webhooks"). Its WEBHOOK_CONCURRENCY slots are
 * shared between accounts by the claim (claimWebhookDeliveries), from what it has in flight
 * per endpoint: an account's silent endpoints hold at most its share of them.
 */
export function startWebhookSender(deps: Dependencies): WebhookSender {
  const { concurrency, allowPrivate, retryScheduleMs, disableAfterMs } = deps.config.webhooks;
  const perEndpoint = new Map<string, number>();
  let inFlight = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  // A claim or record left unanswered (see withinStall) fails within a lease, as the delivery daemon's do: the
  // loop goes on, and a delivery whose record was lost is leased again when its lease expires.
  const records = new Batcher<WebhookAttemptResult, void>(
    async (results) => {
      await recordWebhookAttempts(deps.db, results);
      return results.map(() => undefined);
    },
    { stallMs: LEASE_MS },
  );

  const withAttachmentContent = attachmentContentReader(deps);

  const send = async (leased: LeasedWebhook) => {
    const payload = webhookPayload(await withAttachmentContent(leased), leased.format);
    const at = deps.now();
    // None when the endpoint's format changed after the event was recorded to one that does not send it: it ends failed, unsent.
    const body = payload && JSON.stringify(payload);
    const response =
      body === undefined ? { error: "not sent: the endpoint's format has no such event" } : await postWebhook(leased.url, body, requestHeaders(deps, leased, at, body), allowPrivate);
    const now = deps.now();
    const succeeded = 'status' in response && response.status >= 200 && response.status < 300;
    const nextAttemptAt = succeeded || body === undefined ? undefined : nextWebhookAttempt(retryScheduleMs, leased.attemptCount + 1, now);
    if (!succeeded) deps.logger.info('webhook attempt failed', { webhook_delivery: leased.id, ...('status' in response ? { status: response.status } : { error: response.error }) });
    await records.submit({
      deliveryId: leased.id,
      endpointId: leased.endpointId,
      at: now,
      succeeded,
      responseStatus: 'status' in response ? response.status : null,
      nextAttemptAt,
      disablesEndpoint: !succeeded && endpointGivesUp(leased.failingSince, disableAfterMs, now),
    });
  };

  const start = (leased: LeasedWebhook) => {
    inFlight++;
    perEndpoint.set(leased.endpointId, (perEndpoint.get(leased.endpointId) ?? 0) + 1);
    void send(leased)
      .catch((error: Error) => deps.logger.warn('webhook attempt not recorded; its lease will expire', { error: error.message }))
      .finally(() => {
        inFlight--;
        const left = perEndpoint.get(leased.endpointId)! - 1;
        if (left === 0) perEndpoint.delete(leased.endpointId);
        else perEndpoint.set(leased.endpointId, left);
        wake?.();
      });
  };

  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      if (inFlight < concurrency) {
        const claim = claimWebhookDeliveries(deps.db, {
          now: deps.now(),
          leaseMs: LEASE_MS,
          limit: concurrency - inFlight,
          concurrency,
          perEndpoint: PER_ENDPOINT,
          inFlight: perEndpoint,
        });
        const leased = await withinStall(claim, LEASE_MS).catch((error: Error) => {
          deps.logger.warn('webhook claim failed', { error: error.message });
          return [];
        });
        leased.forEach(start);
        claimed = leased.length;
      }
      if (claimed === 0 || inFlight >= concurrency) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
