import type { DeliveryStatus } from './message-status';

export interface OwedCandidate {
  status: DeliveryStatus;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
}

/**
 * Whether a delivery is owed an attempt now: queued or deferred and due (every waiting one
 * once its sender is gone, so that they all end at once), or `sending` under a lease that
 * expired (its worker died).
 */
export function isOwedAttempt(delivery: OwedCandidate, now: Date, senderActive: boolean): boolean {
  switch (delivery.status) {
    case 'queued':
    case 'deferred':
      return !senderActive || delivery.nextAttemptAt <= now;
    case 'sending':
      return delivery.leaseExpiresAt !== null && delivery.leaseExpiresAt <= now;
    default:
      return false;
  }
}
