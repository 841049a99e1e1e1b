import type { DeliveryChanges, DeliveryRecord, MessageDeliveries, Transition } from '../delivery-records';
import { isOwedAttempt } from '../owed-attempt';

/** Whether the delivery, as locked, is still `sending` under the lease named `token`. */
export const heldBy = (delivery: Pick<DeliveryRecord, 'status' | 'leaseToken'>, token: string): boolean =>
  delivery.status === 'sending' && delivery.leaseToken === token;

/**
 * A claim of a message's deliveries owed an attempt now (isOwedAttempt) under one lease: each
 * moves to `sending` (`claimed`), keeping the cause of its last deferral. Answers the
 * deliveries leased, in their place in the message (the order of RCPT TO).
 */
export function claimOwed(
  message: MessageDeliveries,
  lease: { token: string; expiresAt: Date },
  senderActive: boolean,
  now: Date,
): DeliveryChanges<DeliveryRecord[]> {
  const owed = message.deliveries.filter((d) => isOwedAttempt(d, now, senderActive)).sort((a, b) => a.position - b.position);
  return {
    transitions: owed.map((d): Transition => ({ reason: 'claimed', delivery: d.id, to: 'sending', cause: d.cause, at: now, lease })),
    answer: owed,
  };
}

/** Why leased deliveries go back unattempted, and when they are due again. */
export interface LeaseRelease {
  /** `released`: shutdown, a lease not renewed, the account paused; `postponed`: no warm-up allowance left today. */
  reason: 'released' | 'postponed';
  dueAt: Date;
}

/**
 * Gives leased deliveries back without an attempt: `deferred` again when they had attempts
 * before (with the cause of their last deferral), else `queued`, due at `release.dueAt`. A
 * delivery no longer under the lease named `token` is left alone. Answers how many went back.
 */
export function releaseLeased(
  message: MessageDeliveries,
  token: string,
  deliveryIds: readonly string[],
  release: LeaseRelease,
  now: Date,
): DeliveryChanges<number> {
  const releasing = new Set(deliveryIds);
  const transitions = message.deliveries
    .filter((d) => releasing.has(d.id) && heldBy(d, token))
    .map(
      (d): Transition => ({
        reason: release.reason,
        delivery: d.id,
        to: d.attemptCount > 0 ? 'deferred' : 'queued',
        cause: d.cause,
        at: now,
        nextAttemptAt: release.dueAt,
      }),
    );
  return { transitions, answer: transitions.length };
}
