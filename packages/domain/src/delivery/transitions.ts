import { suppressesRecipient, type SuppressionReason } from '../suppressions/suppression';
import { deliveryEventType, type WebhookEventType } from '../webhooks/webhook-events';
import type { DeliveryCause } from './causes';
import { isTerminal, type DeliveryStatus } from './message-status';

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
  /**
   * Its message was given a new scheduled time before any delivery started: it is first owed
   * an attempt then (docs/api-decisions.md, "Scheduled send and cancel").
   */
  | 'rescheduled'
  /** A delivery status notification reported a permanent failure after it was accepted. */
  | 'bounce_reported'
  /** An operator made a waiting delivery due now (`email retry`; `account resume` for every waiting delivery). */
  | 'made_due'
  /** An operator held a waiting delivery (`queue hold`): it keeps its status and is not claimed until released. */
  | 'held_by_operator'
  /** An operator released a held delivery (`queue release`): due now. */
  | 'released_by_operator'
  /** An operator deleted a waiting delivery from the queue (`queue delete`): it ends `canceled_by_operator`. */
  | 'deleted_by_operator'
  /** A held delivery reached its maximum age (isHeldPastMaxAge). */
  | 'expired_while_held';

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
  rescheduled: { from: ['queued'], to: ['queued'] },
  bounce_reported: { from: ['accepted'], to: ['bounced'] },
  made_due: { from: ['queued', 'deferred'], to: ['queued', 'deferred'] },
  held_by_operator: { from: ['queued', 'deferred'], to: ['queued', 'deferred'] },
  released_by_operator: { from: ['queued', 'deferred'], to: ['queued', 'deferred'] },
  deleted_by_operator: { from: ['queued', 'deferred'], to: ['failed'] },
  expired_while_held: { from: ['queued', 'deferred'], to: ['failed'] },
};

/** Moves that keep the status: they change when (or whether) the delivery is next attempted. */
const KEEP_STATUS: ReadonlySet<TransitionReason> = new Set(['made_due', 'held_by_operator', 'released_by_operator', 'rescheduled']);

/** Whether `reason` may move a delivery from `from` (null: it does not exist yet) to `to`. */
export function isAllowedTransition(reason: TransitionReason, from: DeliveryStatus | null, to: DeliveryStatus): boolean {
  const move = MOVES[reason];
  return move.from.includes(from) && move.to.includes(to) && (!KEEP_STATUS.has(reason) || from === to);
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
  /** What becomes of the operator's hold (`held_at`): set by a hold, cleared by a release or an end, else kept. */
  hold: 'set' | 'clear' | 'keep';
  /** Whether the delivery is first owed anew at its next due time (its age counts from then: `created_at`). */
  firstOwedAgain: boolean;
}

/**
 * The side effects of one move, beyond the delivery itself, the message's derived status and
 * the counters (which every move keeps, see counterDeltas). Creation records no delivery
 * event: the message's own `queued` event stands for its deliveries. A release says
 * nothing: no attempt happened. An operator's retry, hold or release and a reschedule only move
 * the due time or the hold (a reschedule also when the delivery is first owed); an operator's delete ends the delivery with its event and webhook as any end does.
 */
export function transitionEffects(
  reason: TransitionReason,
  delivery: { kind: 'to' | 'cc' | 'bcc' },
  to: DeliveryStatus,
  cause: DeliveryCause | null,
): TransitionEffects {
  const silent = reason === 'created' || reason === 'released' || reason === 'postponed' || KEEP_STATUS.has(reason);
  return {
    event: silent ? null : to,
    webhook: silent ? null : (deliveryEventType(to) ?? null),
    attempt: reason === 'attempted',
    suppression: suppressesRecipient({ kind: delivery.kind, status: to, cause }) ? 'hard_bounce' : null,
    hold: reason === 'held_by_operator' ? 'set' : reason === 'released_by_operator' || isTerminal(to) ? 'clear' : 'keep',
    firstOwedAgain: reason === 'rescheduled',
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
