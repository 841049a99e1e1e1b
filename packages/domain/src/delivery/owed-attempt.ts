import { isTerminal, type DeliveryStatus } from './message-status';

export interface OwedCandidate {
  status: DeliveryStatus;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
  /** Set while an operator holds it (`queue hold`): never owed an attempt until released. */
  heldAt: Date | null;
}

/**
 * When a delivery is owed its next attempt (docs/api-decisions.md, "Delivery"): a queued or
 * deferred one at `nextAttemptAt`, a `sending` one when its lease expires (its worker died
 * unless it renews it); a terminal or held one never. The reconciler's scan states the same rule in
 * SQL (owedDeliveryJobs), and a test holds the two together.
 */
export function owedFrom(delivery: OwedCandidate): Date | undefined {
  if (isTerminal(delivery.status) || delivery.heldAt !== null) return undefined;
  if (delivery.status === 'sending') return delivery.leaseExpiresAt ?? undefined;
  return delivery.nextAttemptAt;
}

/**
 * Whether a delivery is owed an attempt now (owedFrom), or, once its sender is gone, whether
 * it still waits at all: every waiting delivery of a gone sender ends at once, unless an
 * operator holds it.
 */
export function isOwedAttempt(delivery: OwedCandidate, now: Date, senderActive: boolean): boolean {
  if (!senderActive && delivery.heldAt === null && (delivery.status === 'queued' || delivery.status === 'deferred')) return true;
  const from = owedFrom(delivery);
  return from !== undefined && from <= now;
}

/** When a message is next owed work: the earliest owedFrom of its deliveries. */
export function nextObligationOf(deliveries: readonly OwedCandidate[]): Date | undefined {
  let earliest: Date | undefined;
  for (const d of deliveries) {
    const from = owedFrom(d);
    if (from && (!earliest || from < earliest)) earliest = from;
  }
  return earliest;
}
