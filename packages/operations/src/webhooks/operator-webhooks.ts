import { AppError } from '@mailer/domain';
import { findWebhookDeliveryOwner, queueTestWebhookEvent, type Database, type WebhookOperatorRefusal } from '@mailer/db';
import { redeliverWebhookDelivery } from './redeliver-webhook-delivery';

function refused(refusal: WebhookOperatorRefusal, endpointId: string): AppError {
  return refusal === 'not_found'
    ? new AppError('webhook_not_found', `No webhook endpoint with id ${endpointId}.`)
    : new AppError('webhook_endpoint_disabled', `The endpoint ${endpointId} is disabled: enable it first.`);
}

/**
 * `webhook redeliver whd_…` (docs/api-decisions.md, "Queue operations"): the console's redelivery
 * (redeliverWebhookDelivery) of a delivery named by its id alone: the same event sent once more
 * by the daemons' webhook sender, within a poll.
 */
export async function redeliverWebhook(db: Database, deliveryId: string, now: Date) {
  const owner = await findWebhookDeliveryOwner(db, deliveryId);
  if (!owner) throw new AppError('webhook_delivery_not_found', `No webhook delivery with id ${deliveryId}.`);
  await redeliverWebhookDelivery(db, { ...owner, deliveryId }, now);
  return { id: deliveryId, webhook_id: owner.endpointId, status: 'pending' as const };
}

/** `webhook test wh_…`: a signed `webhook.test` event to that endpoint, whatever it subscribes to. */
export async function sendTestWebhook(db: Database, endpointId: string, now: Date) {
  const result = await queueTestWebhookEvent(db, endpointId, now);
  if (typeof result === 'string') throw refused(result, endpointId);
  return { webhook_id: endpointId, event_id: result.eventId, delivery_id: result.deliveryId };
}
