import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { findWebhookDeliveryOwner, queueTestWebhookEvent } from './webhook-operator-store';
import { deleteWebhookEndpoint, updateWebhookEndpoint } from './webhooks-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const now = new Date('2030-01-01T12:00:00.000Z');

const newEndpoint = async () => {
  const accountId = (await createAccount(database.db, 'Operator webhooks')).account.id;
  // Subscribed to nothing the test event is: it is sent whatever the endpoint subscribes to.
  return insertWebhookEndpoint(database.db, { accountId, url: 'https://hooks.example.com/in', events: ['email.bounced'], description: null, secretSealed: 's', now });
};

describe('queueTestWebhookEvent', () => {
  it('records a webhook.test event naming the endpoint, and its delivery to that endpoint due now', async () => {
    const endpoint = await newEndpoint();
    const queued = await queueTestWebhookEvent(database.db, endpoint.id, now);
    if (typeof queued === 'string') throw new Error(queued);
    expect(await database.db`select account_id, type, data, occurred_at from webhook_events where id = ${queued.eventId}`).toEqual([
      { account_id: endpoint.accountId, type: 'webhook.test', data: { webhook_id: endpoint.id }, occurred_at: now },
    ]);
    expect(await database.db`select endpoint_id, event_id, status, attempt_count, next_attempt_at from webhook_deliveries where id = ${queued.deliveryId}`).toEqual([
      { endpoint_id: endpoint.id, event_id: queued.eventId, status: 'pending', attempt_count: 0, next_attempt_at: now },
    ]);
    expect(await findWebhookDeliveryOwner(database.db, queued.deliveryId)).toEqual({ accountId: endpoint.accountId, endpointId: endpoint.id });
  });

  it('refuses a disabled endpoint, and a deleted or unknown one as not found, writing nothing', async () => {
    const [disabled, deleted] = [await newEndpoint(), await newEndpoint()];
    await updateWebhookEndpoint(database.db, disabled, { status: 'disabled' }, now);
    await deleteWebhookEndpoint(database.db, deleted.accountId, deleted.id, now);
    expect(await queueTestWebhookEvent(database.db, disabled.id, now)).toBe('endpoint_disabled');
    expect(await queueTestWebhookEvent(database.db, deleted.id, now)).toBe('not_found');
    expect(await queueTestWebhookEvent(database.db, 'wh_unknown', now)).toBe('not_found');
    expect(await queueTestWebhookEvent(database.db, 'not an id', now)).toBe('not_found');
    expect(await database.db`select id from webhook_events where account_id = any(${[disabled.accountId, deleted.accountId]}::text[])`).toEqual([]);
    expect(await findWebhookDeliveryOwner(database.db, 'whd_unknown')).toBeUndefined();
  });
});
