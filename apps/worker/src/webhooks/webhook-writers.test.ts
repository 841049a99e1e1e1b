import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';
import {
  claimWebhookDeliveries,
  createAccount,
  deleteWebhookEndpoint,
  inTransaction,
  openDatabase,
  recordWebhookAttempts,
  updateWebhookEndpoint,
  webhookEventsOutbox,
  type DatabaseHandle,
  type WebhookEndpoint,
} from '@mailer/db';
import { isIdOf, type WebhookEventType } from '@mailer/domain';

/**
 * Every writer of webhook endpoints and webhook deliveries at once, for a while, on few
 * rows so that they collide: the outbox, claims, attempt records (batched, in any order,
 * some disabling their endpoint), endpoints disabled, enabled again and deleted. A
 * deadlock (40P01) fails the run: a record that locked deliveries before their endpoint
 * deadlocked against an endpoint's change, which locks the endpoint and then ends its
 * pending deliveries.
 */
const RUN_MS = 4_000;

let database: DatabaseHandle;
let accountId: string;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 10);
  accountId = (await createAccount(database.db, 'Webhook writers')).account.id;
});

afterAll(() => database.close());

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

it('writes one delivery per event and subscribed endpoint, each with an id of the shape isIdOf expects', async () => {
  const db = database.db;
  const account = (await createAccount(db, 'Webhook fan-out')).account.id;
  const endpoint = (events: WebhookEventType[]) =>
    insertWebhookEndpoint(db, { accountId: account, url: 'https://hooks.example.com/in', events, description: null, secretSealed: 'sealed', now: new Date() });
  const subscribed = [await endpoint(['email.accepted']), await endpoint(['email.accepted', 'email.bounced']), await endpoint(['email.accepted'])];
  await endpoint(['email.bounced']);
  await inTransaction(db, (tx) => tx.commit(webhookEventsOutbox(tx, [acceptedEvent(account, 1), acceptedEvent(account, 2)])));
  const rows = await db`select id, endpoint_id from webhook_deliveries where account_id = ${account}`;
  expect(rows.map((r) => r.endpoint_id).sort()).toEqual(subscribed.flatMap((e) => [e.id, e.id]).sort());
  expect(new Set(rows.map((r) => r.id)).size).toBe(6);
  for (const { id } of rows) expect(isIdOf('webhookDelivery', id)).toBe(true);
});

it('runs the outbox, claims, attempt records and endpoint changes together without a deadlock', async () => {
  const db = database.db;
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
  const claim = () => claimWebhookDeliveries(db, { now: new Date(), leaseMs: 1, limit: 8, concurrency: 20, perEndpoint: 8, inFlight: new Map() });

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
    loop('claim', claim),
  ]);
  for (const n of Object.values(counts)) expect(n).toBeGreaterThan(10);
});
