/**
 * What a paused account's owed delivery becomes when a daemon claims it (docs/api-decisions.md,
 * "Reputation"): it is not attempted, and waits until its maximum age (MAX_DELIVERY_AGE), when
 * it expires unattempted unless its account was resumed meanwhile.
 */
export type PausedDelivery = { kind: 'expire' } | { kind: 'hold'; until: Date };

export function heldWhilePaused(delivery: { createdAt: Date }, now: Date, maxDeliveryAgeMs: number): PausedDelivery {
  const deadline = delivery.createdAt.getTime() + maxDeliveryAgeMs;
  return now.getTime() >= deadline ? { kind: 'expire' } : { kind: 'hold', until: new Date(deadline) };
}
