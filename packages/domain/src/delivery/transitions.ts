import { reputationCountOf, type ReputationCounting } from '../reputation/reputation-counts';
import type { ReputationWindow } from '../reputation/sending-status';
import { suppressesRecipient, type SuppressionReason } from '../suppressions/suppression';
import { deliveryEventType, type WebhookEventType } from '../webhooks/webhook-events';
import type { DeliveryCause } from './causes';
import { isTerminal, type DeliveryStatus } from './message-status';

/**
 * Why a delivery changes (docs/api-decisions.md, "Delivery", Transitions). Each reason allows
 * some moves and brings its own side effects, all in its row of REASONS; the one writer of
 * delivery transitions (packages/db) records them.
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

/**
 * Reports that add a fact to a delivery without changing its status: each applies once per
 * delivery. `unsubscribed`: its recipient used the message's List-Unsubscribe link or address
 * (docs/api-decisions.md, "Unsubscribe"). `opened` and `clicked`: its recipient's mail client
 * fetched the open pixel or followed a tracked link ("Opens and clicks"); these repeat.
 */
export type DeliveryObservation = 'delayed' | 'complained' | 'unsubscribed' | 'opened' | 'clicked';

/**
 * Everything a reason does (docs/api-decisions.md, "Delivery", Transitions): the moves it
 * allows and every effect the writer records for one, beyond the delivery row itself, the
 * message's derived status and the counters (which every change of status moves, see
 * counterDeltas).
 */
interface ReasonRow {
  from: readonly (DeliveryStatus | null)[];
  to: readonly DeliveryStatus[];
  /** It moves the due time or the hold, never the status. */
  keepsStatus: boolean;
  /** It is told: an event on the message's history named by the status reached, and that status's webhook. */
  told: boolean;
  /** It ends an attempt: the attempt is recorded and the delivery's attempt count grows. */
  attempt: boolean;
  /** What becomes of an operator's hold; any move to a terminal status clears it. */
  hold: 'set' | 'clear' | 'keep';
  /** The delivery is first owed anew at its next due time (its age counts from then: `created_at`). */
  firstOwedAgain: boolean;
  /** A hard bounce it reaches suppresses the (to/cc) recipient. */
  suppressesHardBounce: boolean;
  /** What it adds to its account's reputation counts (reputationCountOf). */
  reputation: Exclude<ReputationCounting, 'complaint'> | null;
}

const QUIET = { told: false, attempt: false, hold: 'keep', firstOwedAgain: false, suppressesHardBounce: false, reputation: null } as const;
const TOLD = { ...QUIET, told: true } as const;

/**
 * One row per reason. Creation is not told: the message's own `queued` event stands for its
 * deliveries. A release or a postponement is not told: no attempt happened. An operator's
 * retry, hold or release and a reschedule only move the due time or the hold; an operator's
 * delete ends the delivery, told as any end is.
 */
const REASONS: Record<TransitionReason, ReasonRow> = {
  created: { from: [null], to: ['queued'], keepsStatus: false, ...QUIET },
  suppressed: { from: [null], to: ['failed'], keepsStatus: false, ...TOLD },
  claimed: { from: ['queued', 'deferred', 'sending'], to: ['sending'], keepsStatus: false, ...TOLD },
  attempted: {
    from: ['sending'],
    to: ['accepted', 'deferred', 'bounced', 'failed'],
    keepsStatus: false,
    ...TOLD,
    attempt: true,
    suppressesHardBounce: true,
    reputation: 'outcome',
  },
  released: { from: ['sending'], to: ['queued', 'deferred'], keepsStatus: false, ...QUIET },
  postponed: { from: ['sending'], to: ['queued', 'deferred'], keepsStatus: false, ...QUIET },
  canceled: { from: ['queued'], to: ['failed'], keepsStatus: false, ...TOLD },
  rescheduled: { from: ['queued'], to: ['queued'], keepsStatus: true, ...QUIET, firstOwedAgain: true },
  bounce_reported: { from: ['accepted'], to: ['bounced'], keepsStatus: false, ...TOLD, suppressesHardBounce: true, reputation: 'reported_bounce' },
  made_due: { from: ['queued', 'deferred'], to: ['queued', 'deferred'], keepsStatus: true, ...QUIET },
  held_by_operator: { from: ['queued', 'deferred'], to: ['queued', 'deferred'], keepsStatus: true, ...QUIET, hold: 'set' },
  released_by_operator: { from: ['queued', 'deferred'], to: ['queued', 'deferred'], keepsStatus: true, ...QUIET, hold: 'clear' },
  deleted_by_operator: { from: ['queued', 'deferred'], to: ['failed'], keepsStatus: false, ...TOLD },
  expired_while_held: { from: ['queued', 'deferred'], to: ['failed'], keepsStatus: false, ...TOLD },
};

/** Whether `reason` may move a delivery from `from` (null: it does not exist yet) to `to`. */
export function isAllowedTransition(reason: TransitionReason, from: DeliveryStatus | null, to: DeliveryStatus): boolean {
  const row = REASONS[reason];
  return row.from.includes(from) && row.to.includes(to) && (!row.keepsStatus || from === to);
}

export interface TransitionEffects {
  /** The event recorded on the message's history, named by the status reached; none when the move is not told. */
  event: DeliveryStatus | null;
  /** The webhook event the move reports. */
  webhook: WebhookEventType | null;
  /** Whether the move ends an attempt (the delivery's attempt count grows). */
  attempt: boolean;
  /** The suppression entry the move adds for its recipient. */
  suppression: Extract<SuppressionReason, 'hard_bounce'> | null;
  /** What becomes of the operator's hold (`held_at`): set by a hold, cleared by a release or an end, else kept. */
  hold: 'set' | 'clear' | 'keep';
  /** Whether the delivery is first owed anew at its next due time. */
  firstOwedAgain: boolean;
  /** What the move adds to its account's reputation counts; null when nothing. */
  reputation: ReputationWindow | null;
}

/** The effects of one move of `delivery` to `to` with `cause`, as its reason's row names them. */
export function transitionEffects(
  reason: TransitionReason,
  delivery: { kind: 'to' | 'cc' | 'bcc' },
  to: DeliveryStatus,
  cause: DeliveryCause | null,
): TransitionEffects {
  const row = REASONS[reason];
  return {
    event: row.told ? to : null,
    webhook: row.told ? (deliveryEventType(to) ?? null) : null,
    attempt: row.attempt,
    suppression: row.suppressesHardBounce && suppressesRecipient({ kind: delivery.kind, status: to, cause }) ? 'hard_bounce' : null,
    hold: row.hold === 'keep' && isTerminal(to) ? 'clear' : row.hold,
    firstOwedAgain: row.firstOwedAgain,
    reputation: row.reputation ? (reputationCountOf({ counting: row.reputation, kind: delivery.kind, to, cause }) ?? null) : null,
  };
}

/** Everything an observation does: where it applies, the fact it stamps, and its effects. */
interface ObservationRow {
  /** The statuses a delivery must be in for it to apply (and, unless it repeats, once: while its stamp is unset). */
  on: readonly DeliveryStatus[];
  /** The delivery's field that records it: the first time, for one that repeats. */
  stamp: 'delayReportedAt' | 'complainedAt' | 'unsubscribedAt' | 'openedAt' | 'clickedAt';
  /** Each report of it is told and sent again (opens and clicks: each fetch is one). */
  repeats: boolean;
  webhook: WebhookEventType | null;
  /** The suppression entry it adds for a to/cc recipient (never for a BCC one, whose entry would reveal the address). */
  suppression: Extract<SuppressionReason, 'complaint' | 'unsubscribed'> | null;
  reputation: Extract<ReputationCounting, 'complaint'> | null;
}

/**
 * A delay is told on the message's history; a complaint is told, sent as `email.complained`,
 * suppresses and counts. An unsubscribe comes from a message the recipient has (accepted, or
 * bounced by a DSN after acceptance, as a complaint may), is told, sent as `email.unsubscribed`
 * and suppresses, but counts nothing against the sender's reputation: it is the recipient's
 * wish, not a sign of abuse. An open or a click comes from a message the recipient has, likewise;
 * each is told and sent (`email.opened`, `email.clicked`), the first one stamped; none
 * suppresses or counts.
 */
const OBSERVATIONS: Record<DeliveryObservation, ObservationRow> = {
  delayed: { on: ['accepted'], stamp: 'delayReportedAt', repeats: false, webhook: null, suppression: null, reputation: null },
  complained: { on: ['accepted', 'bounced'], stamp: 'complainedAt', repeats: false, webhook: 'email.complained', suppression: 'complaint', reputation: 'complaint' },
  unsubscribed: { on: ['accepted', 'bounced'], stamp: 'unsubscribedAt', repeats: false, webhook: 'email.unsubscribed', suppression: 'unsubscribed', reputation: null },
  opened: { on: ['accepted', 'bounced'], stamp: 'openedAt', repeats: true, webhook: 'email.opened', suppression: null, reputation: null },
  clicked: { on: ['accepted', 'bounced'], stamp: 'clickedAt', repeats: true, webhook: 'email.clicked', suppression: null, reputation: null },
};

type ObservedDelivery = { status: DeliveryStatus } & Record<ObservationRow['stamp'], Date | null>;

/** Whether a report may add `observation` to the delivery: in a status its row names, once unless it repeats. */
export function isAllowedObservation(observation: DeliveryObservation, delivery: ObservedDelivery): boolean {
  const row = OBSERVATIONS[observation];
  return row.on.includes(delivery.status) && (row.repeats || delivery[row.stamp] === null);
}

export interface ObservationEffects {
  /** The event recorded on the message's history: the observation's name. */
  event: DeliveryObservation;
  /** The delivery's field set to the observation's time, when it is unset. */
  stamp: ObservationRow['stamp'];
  webhook: WebhookEventType | null;
  suppression: ObservationRow['suppression'];
  reputation: ReputationWindow | null;
}

export function observationEffects(observation: DeliveryObservation, delivery: { kind: 'to' | 'cc' | 'bcc' }): ObservationEffects {
  const row = OBSERVATIONS[observation];
  return {
    event: observation,
    stamp: row.stamp,
    webhook: row.webhook,
    suppression: delivery.kind === 'bcc' ? null : row.suppression,
    reputation: row.reputation ? (reputationCountOf({ counting: row.reputation, kind: delivery.kind }) ?? null) : null,
  };
}
