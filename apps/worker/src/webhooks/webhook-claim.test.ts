import { claimWebhookDeliveries, createAccount, openDatabase, type DatabaseHandle, type LeasedWebhook } from '@mailer/db';
import { newId } from '@mailer/domain';
import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';

/**
 * How a claim shares a sender's slots between accounts and endpoints (docs/api-decisions.md,
 * "Webhooks"): at most (concurrency - 1) / accounts served per account, at least one; at
 * most `perEndpoint` per endpoint; what the sender has in flight counts.
 */
let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
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
