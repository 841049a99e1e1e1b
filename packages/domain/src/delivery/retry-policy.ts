/**
 * When a deferred delivery is tried again (docs/api-decisions.md, "Delivery"): the configured schedule
 * (`RETRY_SCHEDULE`, the last step repeating) with jitter, and giving up once a delivery
 * has had at least one attempt and is older than `MAX_DELIVERY_AGE`.
 */
export interface RetryPolicy {
  scheduleMs: readonly number[];
  maxDeliveryAgeMs: number;
}

/**
 * Each delay is spread uniformly over ±10% so that messages deferred together (one
 * greylisting or rate-limiting server) do not all come back in the same second.
 */
export const RETRY_JITTER = 0.1;

export type RetryDecision = { kind: 'retry'; at: Date } | { kind: 'give_up' };

/** The delay before attempt `attemptCount + 1`, after `attemptCount` (≥ 1) attempts. */
export function retryDelayMs(scheduleMs: readonly number[], attemptCount: number, random: () => number = Math.random): number {
  if (scheduleMs.length === 0) throw new Error('empty retry schedule');
  const base = scheduleMs[Math.min(Math.max(attemptCount, 1), scheduleMs.length) - 1]!;
  return Math.round(base * (1 + RETRY_JITTER * (2 * random() - 1)));
}

/**
 * Decides what follows a deferral of a delivery created at `createdAt` that has now had
 * `attemptCount` attempts. The next attempt is never scheduled past the delivery's maximum
 * age, so the last one happens at that age and gives up if it defers again.
 */
export function decideRetry(
  policy: RetryPolicy,
  delivery: { createdAt: Date; attemptCount: number },
  now: Date,
  random: () => number = Math.random,
): RetryDecision {
  const deadline = delivery.createdAt.getTime() + policy.maxDeliveryAgeMs;
  if (delivery.attemptCount >= 1 && now.getTime() >= deadline) return { kind: 'give_up' };
  const at = Math.min(now.getTime() + retryDelayMs(policy.scheduleMs, delivery.attemptCount, random), deadline);
  return { kind: 'retry', at: new Date(Math.max(at, now.getTime())) };
}
