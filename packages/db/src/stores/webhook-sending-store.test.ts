import { newId } from '@mailer/domain';
import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { webhookEventsOutbox } from './webhook-outbox-store';
import { claimWebhookDeliveries, recordWebhookAttempts, type LeasedWebhook } from './webhook-sending-store';
import { deleteWebhookEndpoint, updateWebhookEndpoint, type WebhookEndpoint } from './webhooks-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 10);
});
afterAll(() => database.close());
// The claim looks at every account's deliveries: each test starts with none due.
afterEach(() => database.db`update webhook_deliveries set status = 'succeeded' where status = 'pending'`);

/** An account with `endpoints` endpoints, each with `due` deliveries due a minute ago; their ids. */
async function accountWithDue(endpoints: number, due: number): Promise<string[]> {
  const db = database.db;
  const accountId = (await createAccount(db, 'Claims')).account.id;
  const ids: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const endpoint = await insertWebhookEndpoint(db, { accountId, url: `https://hooks${i}.example.com/in`, events: ['email.accepted'], description: null, secretSealed: 'sealed', now: new Date() });
    ids.push(endpoint.id);
    const events = Array.from({ length: due }, () => newId('webhookEvent'));
    await db`insert into webhook_events (id, account_id, type, occurred_at) select unnest(${events}::text[]), ${accountId}, 'email.accepted', now()`;
    await db`
      insert into webhook_deliveries (id, endpoint_id, event_id, account_id, next_attempt_at)
      select 'whd_' || e, ${endpoint.id}, e, ${accountId}, now() - interval '1 minute' from unnest(${events}::text[]) e`;
  }
  return ids;
}

const claim = (limit: number, inFlight: Map<string, number> = new Map()) =>
  claimWebhookDeliveries(database.db, { now: new Date(), leaseMs: 60_000, limit, concurrency: 20, perEndpoint: 8, inFlight });

const countBy = (leased: LeasedWebhook[], endpoints: string[]) => endpoints.map((id) => leased.filter((l) => l.endpointId === id).length);

/**
 * How a claim shares a sender's slots between accounts and endpoints (docs/api-decisions.md,
 * "Webhooks"): at most (concurrency - 1) / accounts served per account, at least one; at
 * most `perEndpoint` per endpoint; what the sender has in flight counts.
 */
describe('claimWebhookDeliveries', () => {
  it('never gives one account every slot, and spreads its share over its endpoints in turn', async () => {
    const endpoints = await accountWithDue(4, 8);
    const leased = await claim(20);
    expect(leased).toHaveLength(19);
    expect(Math.min(...countBy(leased, endpoints))).toBeGreaterThanOrEqual(4);
  });

  it('keeps an endpoint to its own bound', async () => {
    const [endpoint] = await accountWithDue(1, 20);
    expect(countBy(await claim(20), [endpoint!])).toEqual([8]);
    expect(countBy(await claim(20, new Map([[endpoint!, 8]])), [endpoint!])).toEqual([0]);
  });

  it('shares the slots between the accounts with due deliveries', async () => {
    const [a, b, c] = [await accountWithDue(3, 20), await accountWithDue(1, 20), await accountWithDue(1, 2)];
    const leased = await claim(20);
    // Three accounts: 19 / 3 = 6 each at most; the third has 2 to send.
    expect([a, b, c].map((endpoints) => countBy(leased, endpoints).reduce((x, y) => x + y))).toEqual([6, 6, 2]);
    expect(countBy(leased, a)).toEqual([2, 2, 2]);
  });

  it('counts what is in flight here: an account that took every slot but one gets none while another waits', async () => {
    const [a, b] = [await accountWithDue(3, 20), await accountWithDue(1, 1)];
    const inFlight = new Map([[a[0]!, 8], [a[1]!, 8], [a[2]!, 3]]);
    const leased = await claim(1, inFlight);
    expect(countBy(leased, [...a, ...b])).toEqual([0, 0, 0, 1]);
    // Alone again, it already holds the most one account may (19).
    expect(await claim(1, inFlight)).toEqual([]);
  });

  it('gives a free slot to the account holding the fewest first', async () => {
    const [a, b] = [await accountWithDue(2, 20), await accountWithDue(1, 20)];
    const leased = await claim(3, new Map([[a[0]!, 1]]));
    // b would then hold 1, 2, 3 and a 2, 3: b's first, then one of each.
    expect(countBy(leased, b)).toEqual([2]);
    expect(countBy(leased, a).reduce((x, y) => x + y)).toBe(1);
  });
});

describe('recordWebhookAttempts', () => {
  const at = new Date('2030-01-01T12:00:00.000Z');
  const minutes = (n: number) => new Date(at.getTime() + n * 60_000);

  /** An endpoint of a new account with one pending delivery per id, leased; the endpoint. */
  async function endpointWith(deliveryIds: string[]) {
    const db = database.db;
    const accountId = (await createAccount(db, 'Records')).account.id;
    const endpoint = await insertWebhookEndpoint(db, { accountId, url: 'https://hooks.example.com/in', events: ['email.accepted'], description: null, secretSealed: 'sealed', now: at });
    for (const id of deliveryIds) {
      await db`insert into webhook_events (id, account_id, type, occurred_at) values (${`evt_${id}`}, ${accountId}, 'email.accepted', ${at})`;
      await db`
        insert into webhook_deliveries (id, endpoint_id, event_id, account_id, next_attempt_at, lease_expires_at)
        values (${id}, ${endpoint.id}, ${`evt_${id}`}, ${accountId}, ${at}, ${minutes(1)})`;
    }
    return endpoint;
  }

  const deliveries = async (endpointId: string) =>
    database.db`
      select id, status, attempt_count, last_attempt_at, last_response_status, next_attempt_at, lease_expires_at
        from webhook_deliveries where endpoint_id = ${endpointId} order by id`;
  const endpointRow = async (endpointId: string) => (await database.db`select status, failing_since, updated_at from webhook_endpoints where id = ${endpointId}`)[0];
  const result = (deliveryId: string, endpointId: string, outcome: { succeeded: boolean; nextAttemptAt?: Date; disablesEndpoint?: boolean; at?: Date }) => ({
    deliveryId,
    endpointId,
    at: outcome.at ?? minutes(2),
    succeeded: outcome.succeeded,
    responseStatus: outcome.succeeded ? 200 : 500,
    ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
    disablesEndpoint: outcome.disablesEndpoint ?? false,
  });

  it("records each attempt on its delivery, and starts the endpoint's failing streak at its first failure", async () => {
    const endpoint = await endpointWith(['whd_rec_a', 'whd_rec_b', 'whd_rec_c']);
    await recordWebhookAttempts(database.db, [
      result('whd_rec_a', endpoint.id, { succeeded: false, nextAttemptAt: minutes(10) }),
      result('whd_rec_b', endpoint.id, { succeeded: false }),
    ]);
    expect(await deliveries(endpoint.id)).toEqual([
      { id: 'whd_rec_a', status: 'pending', attempt_count: 1, last_attempt_at: minutes(2), last_response_status: 500, next_attempt_at: minutes(10), lease_expires_at: null },
      { id: 'whd_rec_b', status: 'failed', attempt_count: 1, last_attempt_at: minutes(2), last_response_status: 500, next_attempt_at: at, lease_expires_at: null },
      { id: 'whd_rec_c', status: 'pending', attempt_count: 0, last_attempt_at: null, last_response_status: null, next_attempt_at: at, lease_expires_at: minutes(1) },
    ]);
    expect(await endpointRow(endpoint.id)).toMatchObject({ status: 'enabled', failing_since: minutes(2) });
    // A later failure keeps the streak's start; a success ends it.
    await recordWebhookAttempts(database.db, [result('whd_rec_a', endpoint.id, { succeeded: false, nextAttemptAt: minutes(20), at: minutes(10) })]);
    expect((await endpointRow(endpoint.id))!.failing_since).toEqual(minutes(2));
    await recordWebhookAttempts(database.db, [result('whd_rec_a', endpoint.id, { succeeded: true, at: minutes(20) })]);
    expect(await endpointRow(endpoint.id)).toMatchObject({ status: 'enabled', failing_since: null });
    expect((await deliveries(endpoint.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 3, last_response_status: 200 });
  });

  it('disables the endpoint on a failure that says so and ends its pending deliveries unsent; one in flight then keeps only a success', async () => {
    const endpoint = await endpointWith(['whd_dis_a', 'whd_dis_b', 'whd_dis_c', 'whd_dis_d']);
    await recordWebhookAttempts(database.db, [result('whd_dis_a', endpoint.id, { succeeded: false, nextAttemptAt: minutes(10), disablesEndpoint: true })]);
    expect(await endpointRow(endpoint.id)).toEqual({ status: 'disabled', failing_since: minutes(2), updated_at: minutes(2) });
    expect((await deliveries(endpoint.id)).map((d) => [d.id, d.status, d.attempt_count])).toEqual([
      ['whd_dis_a', 'failed', 1],
      ['whd_dis_b', 'failed', 0],
      ['whd_dis_c', 'failed', 0],
      ['whd_dis_d', 'failed', 0],
    ]);
    // Attempts that were in flight as it was disabled: a retryable failure stays failed, a success counts.
    await recordWebhookAttempts(database.db, [
      result('whd_dis_b', endpoint.id, { succeeded: false, nextAttemptAt: minutes(10), at: minutes(3) }),
      result('whd_dis_c', endpoint.id, { succeeded: true, at: minutes(3) }),
    ]);
    expect((await deliveries(endpoint.id)).map((d) => [d.id, d.status, d.attempt_count])).toEqual([
      ['whd_dis_a', 'failed', 1],
      ['whd_dis_b', 'failed', 1],
      ['whd_dis_c', 'succeeded', 1],
      ['whd_dis_d', 'failed', 0],
    ]);
    // The success clears the streak; the endpoint stays disabled, changed when it was disabled.
    expect(await endpointRow(endpoint.id)).toEqual({ status: 'disabled', failing_since: null, updated_at: minutes(2) });
  });
});

/**
 * Every writer of webhook endpoints and webhook deliveries at once, for a while, on few
 * rows so that they collide: the outbox, claims, attempt records (batched, in any order,
 * some disabling their endpoint), endpoints disabled, enabled again and deleted. A
 * deadlock (40P01) fails the run: a record that locked deliveries before their endpoint
 * deadlocked against an endpoint's change, which locks the endpoint and then ends its
 * pending deliveries.
 */
describe('recordWebhookAttempts beside the other webhook writers', () => {
  const RUN_MS = 4_000;

  const shuffled = <T>(items: readonly T[]): T[] => [...items].sort(() => Math.random() - 0.5);

  const acceptedEvent = (account: string, i: number) => ({
    accountId: account,
    type: 'email.accepted' as const,
    emailId: `em_writers${i}`,
    recipient: `r${i}@example.com`,
    recipientKind: 'to' as const,
    status: 'accepted' as const,
    cause: null,
    attemptCount: 1,
    at: new Date(),
  });

  it('runs the outbox, claims, attempt records and endpoint changes together without a deadlock', async () => {
    const db = database.db;
    const accountId = (await createAccount(db, 'Webhook writers')).account.id;
    const newEndpoint = () =>
      insertWebhookEndpoint(db, { accountId, url: 'https://hooks.example.com/in', events: ['email.accepted'], description: null, secretSealed: 'sealed', now: new Date() });
    const endpoints: WebhookEndpoint[] = [await newEndpoint(), await newEndpoint(), await newEndpoint(), await newEndpoint()];
    const outbox = () =>
      inTransaction(db, (tx) =>
        tx.commit(
          webhookEventsOutbox(
            tx,
            Array.from({ length: 4 }, (_, i) => acceptedEvent(accountId, i)),
          ),
        ),
      );
    const pending = async () =>
      (await db`select id, endpoint_id from webhook_deliveries where status = 'pending' order by random() limit 12`).map((r) => ({
        deliveryId: r.id as string,
        endpointId: r.endpoint_id as string,
      }));
    const record = async () => {
      const now = new Date();
      await recordWebhookAttempts(
        db,
        shuffled(await pending()).map((d) => ({
          ...d,
          at: now,
          succeeded: Math.random() < 0.3,
          responseStatus: 500,
          nextAttemptAt: now,
          disablesEndpoint: Math.random() < 0.1,
        })),
      );
    };
    // Each changer has endpoints of its own (a deleted one is replaced), so that its view of them stays true.
    const change = (mine: number) => async () => {
      const i = 2 * Math.floor(Math.random() * 2) + mine;
      const roll = Math.random();
      if (roll < 0.15) {
        expect(await deleteWebhookEndpoint(db, accountId, endpoints[i]!.id, new Date())).toBe(true);
        endpoints[i] = await newEndpoint();
        return;
      }
      const status = endpoints[i]!.status === 'enabled' ? 'disabled' : 'enabled';
      endpoints[i] = (await updateWebhookEndpoint(db, endpoints[i]!, { status }, new Date()))!;
    };
    const claimSome = () => claimWebhookDeliveries(db, { now: new Date(), leaseMs: 1, limit: 8, concurrency: 20, perEndpoint: 8, inFlight: new Map() });

    const counts = { outbox: 0, record: 0, change: 0, claim: 0 };
    // For RUN_MS at least, and until each writer has run enough for their locks to meet, however slow the machine.
    const deadline = Date.now() + RUN_MS;
    const enough = () => Object.values(counts).every((n) => n > 10);
    const giveUpAt = Date.now() + 5 * RUN_MS;
    const loop = async (name: keyof typeof counts, work: () => Promise<unknown>) => {
      while ((Date.now() < deadline || !enough()) && Date.now() < giveUpAt) {
        await work();
        counts[name]++;
      }
    };
    await Promise.all([
      loop('outbox', outbox),
      loop('outbox', outbox),
      loop('record', record),
      loop('record', record),
      loop('record', record),
      loop('change', change(0)),
      loop('change', change(1)),
      loop('claim', claimSome),
    ]);
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(10);
  });
});
