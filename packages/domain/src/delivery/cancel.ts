import type { DeliveryCause } from './causes';
import type { DeliveryStatus } from './message-status';

export const CANCELED: DeliveryCause = { code: 'canceled', permanent: true, smtp_code: null, enhanced_status: null };

/** The cause of a delivery an operator deleted from the queue (docs/api-decisions.md, "Queue operations"). */
export const CANCELED_BY_OPERATOR: DeliveryCause = { code: 'canceled_by_operator', permanent: true, smtp_code: null, enhanced_status: null };

/**
 * Whether a message can still be canceled (docs/api-decisions.md, "Scheduled send and
 * cancel"), judged on its deliveries as locked: none has started, that is none is leased
 * (`sending`) or has had an attempt, and some are still `queued` (those are the ones a
 * cancel ends). Deliveries already terminal without an attempt (suppressed recipients)
 * stay as they are.
 */
export function isCancelable(deliveries: readonly { status: DeliveryStatus; attemptCount: number }[]): boolean {
  const started = deliveries.some((d) => d.status === 'sending' || d.attemptCount > 0);
  return !started && deliveries.some((d) => d.status === 'queued');
}
