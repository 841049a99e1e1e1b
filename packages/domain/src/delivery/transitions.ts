import { suppressesRecipient, type SuppressionReason } from '../suppressions/suppression';
import { deliveryEventType, type WebhookEventType } from '../webhooks/webhook-events';
import type { DeliveryCause } from './causes';
import type { DeliveryStatus } from './message-status';

/**
 * Why a delivery changes (docs/api-decisions.md, "Delivery", Transitions). Each reason allows
 * some moves and brings its own side effects; the one writer of delivery transitions
 * (packages/db) records them all through the rules below.
 */
export type TransitionReason =
  /** Intake created it, owed an attempt. */
  | 'created'
  /** Intake created it for a suppressed recipient: it ends at once, never attempted. */
  | 'suppressed'
  /** A daemon leased it for an attempt (also a lease that expired, taken over). */
  | 'claimed'
  /** An attempt (or the local decision that stood in for one) decided it. */
  | 'attempted'
  /**
   * Given back unattempted (shutdown, a lease not renewed in time; its account's sending
   * paused, due again at its expiry: docs/api-decisions.md, "Reputation").
   */
  | 'released'
  /**
   * Given back unattempted with a later due time: its egress address had no warm-up allowance
   * left today (docs/api-decisions.md, "Providers and egress pools"); no attempt, no event.
   */
  | 'postponed'
  /** Its message was canceled before any delivery started. */
  | 'canceled'
  /** A delivery status notification reported a permanent failure after it was accepted. */
  | 'bounce_reported'
  /** An operator made a waiting delivery due now (`email retry`; `account resume` for every waiting delivery). */
  | 'made_due';

/** Reports that add a fact to a delivery without changing its status: each applies once per delivery. */
export type DeliveryObservation = 'delayed' | 'complained';

const MOVES: Record<TransitionReason, { from: readonly (DeliveryStatus | null)[]; to: readonly DeliveryStatus[] }> = {
  created: { from: [null], to: ['queued'] },
  suppressed: { from: [null], to: ['failed'] },
  claimed: { from: ['queued', 'deferred', 'sending'], to: ['sending'] },
  attempted: { from: ['sending'], to: ['accepted', 'deferred', 'bounced', 'failed'] },
  released: { from: ['sending'], to: ['queued', 'deferred'] },
  postponed: { from: ['sending'], to: ['queued', 'deferred'] },
  canceled: { from: ['queued'], to: ['failed'] },
  bounce_reported: { from: ['accepted'], to: ['bounced'] },
  made_due: { from: ['queued', 'deferred'], to: ['queued', 'deferred'] },
};

/** Whether `reason` may move a delivery from `from` (null: it does not exist yet) to `to`. */
export function isAllowedTransition(reason: TransitionReason, from: DeliveryStatus | null, to: DeliveryStatus): boolean {
  const move = MOVES[reason];
  return move.from.includes(from) && move.to.includes(to) && (reason !== 'made_due' || from === to);
}

export interface TransitionEffects {
  /** The event recorded on the message's history, named by the status reached; none when the move says nothing new. */
  event: DeliveryStatus | null;
  /** The webhook event the move reports. */
  webhook: WebhookEventType | null;
  /** Whether the move ends an attempt (the delivery's attempt count grows). */
  attempt: boolean;
  /** The suppression entry the move adds for its recipient. */
  suppression: Extract<SuppressionReason, 'hard_bounce'> | null;
}

/**
 * The side effects of one move, beyond the delivery itself, the message's derived status and
 * the counters (which every move keeps, see counterDeltas). Creation records no delivery
 * event: the message's own `queued` event stands for its deliveries. A release says
 * nothing: no attempt happened. An operator's retry only moves the due time.
 */
export function transitionEffects(
  reason: TransitionReason,
  delivery: { kind: 'to' | 'cc' | 'bcc' },
  to: DeliveryStatus,
  cause: DeliveryCause | null,
): TransitionEffects {
  const silent = reason === 'created' || reason === 'released' || reason === 'postponed' || reason === 'made_due';
  return {
    event: silent ? null : to,
    webhook: silent ? null : (deliveryEventType(to) ?? null),
    attempt: reason === 'attempted',
    suppression: suppressesRecipient({ kind: delivery.kind, status: to, cause }) ? 'hard_bounce' : null,
  };
}

/**
 * Whether a report may add `observation` to a delivery: a delay to an accepted delivery, a
 * complaint to one accepted (or bounced since); each once.
 */
export function isAllowedObservation(
  observation: DeliveryObservation,
  delivery: { status: DeliveryStatus; delayReportedAt: Date | null; complainedAt: Date | null },
): boolean {
  if (observation === 'delayed') return delivery.status === 'accepted' && delivery.delayReportedAt === null;
  return (delivery.status === 'accepted' || delivery.status === 'bounced') && delivery.complainedAt === null;
}

export interface ObservationEffects {
  event: DeliveryObservation;
  webhook: WebhookEventType | null;
  suppression: Extract<SuppressionReason, 'complaint'> | null;
}

/**
 * A delay adds its event; a complaint adds its event, an `email.complained` webhook and a
 * `complaint` suppression (never for a BCC delivery, whose entry would reveal the address).
 */
export function observationEffects(observation: DeliveryObservation, delivery: { kind: 'to' | 'cc' | 'bcc' }): ObservationEffects {
  if (observation === 'delayed') return { event: 'delayed', webhook: null, suppression: null };
  return { event: 'complained', webhook: 'email.complained', suppression: delivery.kind === 'bcc' ? null : 'complaint' };
}
