import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount, setAccountPlan } from './accounts-store';
import { createWebhookEndpoint, deleteWebhookEndpoint, requeueWebhookDelivery, updateWebhookEndpoint, type WebhookEndpoint } from './webhooks-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
});
afterAll(() => database.close());

const at = new Date('2030-01-01T12:00:00.000Z');
const minutes = (n: number) => new Date(at.getTime() + n * 60_000);
const newAccount = async () => (await createAccount(database.db, 'Endpoints')).account.id;

const create = (accountId: string) =>
  createWebhookEndpoint(database.db, { accountId, url: 'https://hooks.example.com/in', events: ['email.accepted'], description: null, secretSealed: 'sealed', now: at });

async function endpointOf(accountId: string): Promise<WebhookEndpoint> {
  const created = await create(accountId);
  if (created.kind !== 'created') throw new Error('limit reached');
  return created.endpoint;
}

/** A delivery of the endpoint in `status`, with its event. */
async function deliveryOf(endpoint: WebhookEndpoint, id: string, status: 'pending' | 'succeeded' | 'failed', attemptCount = 0, leaseExpiresAt: Date | null = null) {
  await database.db`insert into webhook_events (id, account_id, type, occurred_at) values (${`evt_${id}`}, ${endpoint.accountId}, 'email.accepted', ${at})`;
  await database.db`
    insert into webhook_deliveries (id, endpoint_id, event_id, account_id, status, attempt_count, next_attempt_at, lease_expires_at)
    values (${id}, ${endpoint.id}, ${`evt_${id}`}, ${endpoint.accountId}, ${status}, ${attemptCount}, ${minutes(30)}, ${leaseExpiresAt})`;
}

const deliveryRow = async (id: string) =>
  (await database.db`select status, attempt_count, next_attempt_at, lease_expires_at from webhook_deliveries where id = ${id}`)[0];

describe('createWebhookEndpoint', () => {
  it("refuses past the plan's max_webhook_endpoints, a disabled endpoint counting and a deleted one not, even when created at once", async () => {
    const accountId = await newAccount();
    await setAccountPlan(database.db, accountId, { maxWebhookEndpoints: 2 });
    const results = await Promise.all([create(accountId), create(accountId), create(accountId)]);
    expect(results.map((r) => r.kind).sort()).toEqual(['created', 'created', 'limit_reached']);
    expect(results.find((r) => r.kind === 'limit_reached')).toEqual({ kind: 'limit_reached', quota: { existing: 2, max: 2 } });
    const [first, second] = results.flatMap((r) => (r.kind === 'created' ? [r.endpoint] : []));
    await updateWebhookEndpoint(database.db, first!, { status: 'disabled' }, at);
    expect((await create(accountId)).kind).toBe('limit_reached');
    await deleteWebhookEndpoint(database.db, accountId, second!.id, at);
    expect((await create(accountId)).kind).toBe('created');
  });
});

describe('updateWebhookEndpoint and deleteWebhookEndpoint', () => {
  it('leave an endpoint alone when nothing changes, and clear its failing streak when it is enabled again', async () => {
    const endpoint = await endpointOf(await newAccount());
    expect(await updateWebhookEndpoint(database.db, endpoint, { url: endpoint.url, events: [...endpoint.events] }, minutes(5))).toBe(endpoint);
    expect((await database.db`select updated_at from webhook_endpoints where id = ${endpoint.id}`)[0]!.updated_at).toEqual(at);

    await database.db`update webhook_endpoints set status = 'disabled', failing_since = ${minutes(1)} where id = ${endpoint.id}`;
    const enabled = await updateWebhookEndpoint(database.db, { ...endpoint, status: 'disabled' }, { status: 'enabled' }, minutes(5));
    expect(enabled).toMatchObject({ status: 'enabled', updatedAt: minutes(5) });
    expect((await database.db`select failing_since from webhook_endpoints where id = ${endpoint.id}`)[0]!.failing_since).toBeNull();
  });

  it('end the pending deliveries of an endpoint disabled or deleted, unsent, and leave finished ones as they were', async () => {
    const accountId = await newAccount();
    const [disabled, deleted] = [await endpointOf(accountId), await endpointOf(accountId)];
    for (const endpoint of [disabled, deleted]) {
      await deliveryOf(endpoint, `${endpoint.id}_pending`, 'pending');
      await deliveryOf(endpoint, `${endpoint.id}_done`, 'succeeded', 1);
    }
    await updateWebhookEndpoint(database.db, disabled, { status: 'disabled' }, at);
    expect(await deleteWebhookEndpoint(database.db, accountId, deleted.id, at)).toBe(true);
    expect(await deleteWebhookEndpoint(database.db, accountId, deleted.id, at)).toBe(false);
    for (const endpoint of [disabled, deleted]) {
      expect(await deliveryRow(`${endpoint.id}_pending`)).toMatchObject({ status: 'failed', attempt_count: 0 });
      expect(await deliveryRow(`${endpoint.id}_done`)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    }
  });
});

describe('requeueWebhookDelivery', () => {
  it('makes a finished delivery pending with no attempts counted, and a pending one due now with its attempts and lease', async () => {
    const endpoint = await endpointOf(await newAccount());
    await deliveryOf(endpoint, 'whd_rq_failed', 'failed', 7);
    await deliveryOf(endpoint, 'whd_rq_pending', 'pending', 2, minutes(1));
    const target = (deliveryId: string) => ({ accountId: endpoint.accountId, endpointId: endpoint.id, deliveryId });
    expect(await requeueWebhookDelivery(database.db, target('whd_rq_failed'), at)).toBe('requeued');
    expect(await requeueWebhookDelivery(database.db, target('whd_rq_pending'), at)).toBe('requeued');
    expect(await deliveryRow('whd_rq_failed')).toEqual({ status: 'pending', attempt_count: 0, next_attempt_at: at, lease_expires_at: null });
    expect(await deliveryRow('whd_rq_pending')).toEqual({ status: 'pending', attempt_count: 2, next_attempt_at: at, lease_expires_at: minutes(1) });
  });

  it("answers endpoint_disabled under a disabled endpoint and not_found for another account's or an unknown delivery, changing nothing", async () => {
    const endpoint = await endpointOf(await newAccount());
    await deliveryOf(endpoint, 'whd_rq_kept', 'failed', 3);
    const target = { accountId: endpoint.accountId, endpointId: endpoint.id, deliveryId: 'whd_rq_kept' };
    expect(await requeueWebhookDelivery(database.db, { ...target, accountId: await newAccount() }, at)).toBe('not_found');
    expect(await requeueWebhookDelivery(database.db, { ...target, deliveryId: 'whd_unknown' }, at)).toBe('not_found');
    await updateWebhookEndpoint(database.db, endpoint, { status: 'disabled' }, at);
    expect(await requeueWebhookDelivery(database.db, target, at)).toBe('endpoint_disabled');
    expect(await deliveryRow('whd_rq_kept')).toEqual({ status: 'failed', attempt_count: 3, next_attempt_at: minutes(30), lease_expires_at: null });
  });
});
