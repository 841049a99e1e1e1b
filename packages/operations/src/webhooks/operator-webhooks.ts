import { AppError } from '@mailer/domain';
import { queueTestWebhookEvent, redeliverWebhookDelivery, type Database, type WebhookOperatorRefusal } from '@mailer/db';

function refused(refusal: WebhookOperatorRefusal, what: string): AppError {
  switch (refusal) {
    case 'not_found':
      return what.startsWith('whd_')
        ? new AppError('webhook_delivery_not_found', `No webhook delivery with id ${what}.`)
        : new AppError('webhook_not_found', `No webhook endpoint with id ${what}.`);
    case 'pending':
      return new AppError('webhook_delivery_pending', `Webhook delivery ${what} is still pending: it will be sent without a redelivery.`);
    case 'endpoint_disabled':
      return new AppError('webhook_endpoint_disabled', `The endpoint of ${what} is disabled or deleted: enable it first.`);
  }
}

/**
 * `webhook redeliver whd_…` (docs/api-decisions.md, "Queue operations"): the delivery's event
 * sent once more to its endpoint by the daemons' webhook sender, within a poll.
 */
export async function redeliverWebhook(db: Database, deliveryId: string, now: Date) {
  const result = await redeliverWebhookDelivery(db, deliveryId, now);
  if (typeof result === 'string') throw refused(result, deliveryId);
  return { id: result.id, webhook_id: result.endpointId, status: 'pending' as const };
}

/** `webhook test wh_…`: a signed `webhook.test` event to that endpoint, whatever it subscribes to. */
export async function sendTestWebhook(db: Database, endpointId: string, now: Date) {
  const result = await queueTestWebhookEvent(db, endpointId, now);
  if (typeof result === 'string') throw refused(result, endpointId);
  return { webhook_id: endpointId, event_id: result.eventId, delivery_id: result.deliveryId };
}
