import { requeueWebhookDelivery, type Queryable } from '@mailer/db';
import { AppError } from '@mailer/domain';

/**
 * Sends one webhook delivery again (docs/api-decisions.md, "Operator console"): due now, with the
 * same event (the same `webhook-id`, so a receiver that already took it can tell), and a fresh
 * retry schedule when it had finished. Throws webhook_not_found for an unknown delivery or
 * endpoint, and webhook_endpoint_disabled while the endpoint is disabled.
 */
export async function redeliverWebhookDelivery(
  db: Queryable,
  target: { accountId: string; endpointId: string; deliveryId: string },
  now: Date,
): Promise<void> {
  const result = await requeueWebhookDelivery(db, target, now);
  if (result === 'not_found') throw new AppError('webhook_not_found', 'No such webhook delivery of this endpoint in this account.');
  if (result === 'endpoint_disabled') {
    throw new AppError('webhook_endpoint_disabled', 'The webhook endpoint is disabled: enable it before redelivering its deliveries.');
  }
}
