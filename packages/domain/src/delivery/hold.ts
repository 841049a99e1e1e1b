import type { DeliveryCause } from './causes';
import type { DeliveryStatus } from './message-status';

/**
 * What an operator's queue operations may act on (docs/api-decisions.md, "Queue operations"):
 * deliveries waiting for an attempt. A delivery in flight (`sending`) is left to its attempt,
 * a terminal one is final.
 */
export function isWaiting(status: DeliveryStatus): boolean {
  return status === 'queued' || status === 'deferred';
}

/**
 * Whether a held delivery has reached its maximum age (MAX_DELIVERY_AGE after it was first
 * owed an attempt): holding stops its attempts, not its expiry, so it then ends `failed`
 * (expiredWhileHeldCause) as a delivery that kept deferring would.
 */
export function isHeldPastMaxAge(delivery: { status: DeliveryStatus; heldAt: Date | null; createdAt: Date }, now: Date, maxDeliveryAgeMs: number): boolean {
  return delivery.heldAt !== null && isWaiting(delivery.status) && now.getTime() >= delivery.createdAt.getTime() + maxDeliveryAgeMs;
}

/** `retries_exhausted`, keeping the codes of the last deferral (if any) to say what kept failing. */
export function expiredWhileHeldCause(last: DeliveryCause | null): DeliveryCause {
  return { code: 'retries_exhausted', permanent: true, smtp_code: last?.smtp_code ?? null, enhanced_status: last?.enhanced_status ?? null };
}

/** What an operator does to the waiting deliveries selected (docs/api-decisions.md, "Queue operations"). */
export type QueueAction = 'hold' | 'release' | 'delete' | 'flush';

export const QUEUE_ACTIONS = ['hold', 'release', 'delete', 'flush'] as const satisfies readonly QueueAction[];

/**
 * Whether `action` applies to a delivery as locked: a hold to a waiting delivery not held, a
 * release to a held one, a delete to any waiting one (held or not), a flush (attempt now) to a
 * deferred one not held. Others are left as they are and not counted.
 */
export function queueActionApplies(action: QueueAction, delivery: { status: DeliveryStatus; heldAt: Date | null }): boolean {
  switch (action) {
    case 'hold':
      return isWaiting(delivery.status) && delivery.heldAt === null;
    case 'release':
      return isWaiting(delivery.status) && delivery.heldAt !== null;
    case 'delete':
      return isWaiting(delivery.status);
    case 'flush':
      return delivery.status === 'deferred' && delivery.heldAt === null;
  }
}
