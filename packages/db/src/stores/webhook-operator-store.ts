import { isIdOf, newId, WEBHOOK_TEST_EVENT_TYPE } from '@mailer/domain';
import type { Database } from '../database';
import { lockWebhookDeliveries, lockWebhookEndpoints } from '../lock-order';
import { inTransaction } from '../transaction';

/** Why a redelivery or a test event was not queued: unknown, still pending, or its endpoint not enabled (disabled or deleted). */
export type WebhookOperatorRefusal = 'not_found' | 'pending' | 'endpoint_disabled';

/**
 * Makes a webhook delivery pending again, due now (`webhook redeliver`, docs/api-decisions.md,
 * "Queue operations"): the same event (same `webhook-id`) sent once more. Its attempt count
 * stays, so a delivery whose retries were used up gets one attempt and is `failed` again if
 * that fails. The endpoint is locked before the delivery (the lock order), so that a change
 * of the endpoint meanwhile is seen; one still pending (or in flight) is left alone.
 */
export async function redeliverWebhookDelivery(db: Database, deliveryId: string, now: Date): Promise<{ id: string; endpointId: string } | WebhookOperatorRefusal> {
  if (!isIdOf('webhookDelivery', deliveryId)) return 'not_found';
  return inTransaction(db, async (tx) => {
    const [[found]] = await tx.send(tx.sql`select endpoint_id from webhook_deliveries where id = ${deliveryId}`);
    if (!found) return 'not_found';
    const endpointId = found.endpoint_id as string;
    const { state } = await tx.send({
      locks: [...lockWebhookEndpoints(tx, [endpointId]), ...lockWebhookDeliveries(tx, [deliveryId])],
      state: tx.sql`
        select d.status, w.status = 'enabled' and w.deleted_at is null as endpoint_enabled
          from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
         where d.id = ${deliveryId}`,
    });
    const row = state[0]!;
    if (!row.endpoint_enabled) return 'endpoint_disabled';
    if (row.status === 'pending') return 'pending';
    await tx.commit(tx.sql`update webhook_deliveries set status = 'pending', next_attempt_at = ${now}, lease_expires_at = null where id = ${deliveryId}`);
    return { id: deliveryId, endpointId };
  });
}

/**
 * Records a `webhook.test` event for one enabled endpoint and its delivery, due now (`webhook
 * test`): sent, signed and retried as any event, whatever the endpoint subscribes to. Its data
 * names the endpoint.
 */
export async function queueTestWebhookEvent(db: Database, endpointId: string, now: Date): Promise<{ eventId: string; deliveryId: string } | WebhookOperatorRefusal> {
  if (!isIdOf('webhook', endpointId)) return 'not_found';
  const eventId = newId('webhookEvent');
  const deliveryId = newId('webhookDelivery');
  return inTransaction(db, async (tx) => {
    const { found } = await tx.send({
      locks: lockWebhookEndpoints(tx, [endpointId]),
      found: tx.sql`select account_id, status, deleted_at from webhook_endpoints where id = ${endpointId}`,
    });
    const endpoint = found[0];
    if (!endpoint || endpoint.deleted_at !== null) return 'not_found';
    if (endpoint.status !== 'enabled') return 'endpoint_disabled';
    await tx.commit(
      tx.sql`
        insert into webhook_events (id, account_id, type, data, occurred_at)
        values (${eventId}, ${endpoint.account_id}, ${WEBHOOK_TEST_EVENT_TYPE}, ${tx.sql.json({ webhook_id: endpointId })}, ${now})`,
      tx.sql`
        insert into webhook_deliveries (id, endpoint_id, event_id, account_id, next_attempt_at, created_at)
        values (${deliveryId}, ${endpointId}, ${eventId}, ${endpoint.account_id}, ${now}, ${now})`,
    );
    return { eventId, deliveryId };
  });
}
