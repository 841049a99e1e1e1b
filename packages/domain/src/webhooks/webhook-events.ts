import { randomBytes } from 'node:crypto';
import type { DeliveryStatus } from '../delivery/message-status';

/** What an endpoint can subscribe to (docs/api-decisions.md, "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  'email.accepted',
  'email.deferred',
  'email.bounced',
  'email.failed',
  'email.complained',
  /** A recipient unsubscribed through the message's List-Unsubscribe (docs/api-decisions.md, "Unsubscribe"). */
  'email.unsubscribed',
  /** A recipient's mail client fetched the open pixel, or followed a tracked link (docs/api-decisions.md, "Opens and clicks"). */
  'email.opened',
  'email.clicked',
  'domain.status_changed',
  'domain.dkim_rotation_pending',
  /** An account's sending status changed (docs/api-decisions.md, "Reputation"). */
  'account.sending_status_changed',
  /** A message was received for a route (docs/api-decisions.md, "Inbound mail"). */
  'email.received',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * An event an operator sends to one endpoint to try it (`webhook test`, docs/api-decisions.md,
 * "Queue operations"): not subscribable, sent whatever the endpoint's `events`.
 */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';
/** Every type a webhook delivery can carry: the subscribable ones and the test event. */
export const SENT_WEBHOOK_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE] as const;
export type SentWebhookEventType = (typeof SENT_WEBHOOK_EVENT_TYPES)[number];

/** Whether an event of this type carries its data whole (recorded with it), rather than a delivery's facts. */
export const carriesData = (type: SentWebhookEventType): boolean => type === 'email.received' || !type.startsWith('email.');

/** The event a delivery's move to `status` reports: one per transition, per attempt for a deferral; none for queued or sending. */
export function deliveryEventType(status: DeliveryStatus): WebhookEventType | undefined {
  switch (status) {
    case 'accepted':
    case 'deferred':
    case 'bounced':
    case 'failed':
      return `email.${status}`;
    default:
      return undefined;
  }
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * When a webhook delivery that just failed its `attemptCount`-th attempt is tried again:
 * the schedule's step for that attempt, or undefined once the schedule is used up (it is
 * then `failed`).
 */
export function nextWebhookAttempt(scheduleMs: readonly number[], attemptCount: number, now: Date): Date | undefined {
  const step = scheduleMs[attemptCount - 1];
  return step === undefined ? undefined : new Date(now.getTime() + step);
}

/** Whether an endpoint whose deliveries have failed without a success since `failingSince` is disabled now. */
export const endpointGivesUp = (failingSince: Date | null, disableAfterMs: number, now: Date): boolean =>
  failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfterMs;

/** The purpose webhook signing secrets are sealed under (see seal). */
export const WEBHOOK_SECRET_SEAL_PURPOSE = 'webhook-secret';

/** A new signing secret: `whsec_` and 32 random bytes, base64 (the Standard Webhooks form). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
