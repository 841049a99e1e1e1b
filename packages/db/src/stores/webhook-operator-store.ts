import { isIdOf, newId, WEBHOOK_TEST_EVENT_TYPE } from '@mailer/domain';
import type { Database, Queryable } from '../database';
import { lockWebhookEndpoints } from '../lock-order';
import { inTransaction } from '../transaction';

/** Why a test event was not queued: no such endpoint (or deleted), or it is disabled. */
export type WebhookOperatorRefusal = 'not_found' | 'endpoint_disabled';

/** The endpoint and account of a webhook delivery, by its id alone (the operator names no account); undefined when none. */
export async function findWebhookDeliveryOwner(db: Queryable, deliveryId: string): Promise<{ accountId: string; endpointId: string } | undefined> {
  if (!isIdOf('webhookDelivery', deliveryId)) return undefined;
  const [row] = await db`select account_id, endpoint_id from webhook_deliveries where id = ${deliveryId}`;
  return row && { accountId: row.account_id, endpointId: row.endpoint_id };
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
