import { deriveMessageStatus, isTerminal, type DeliveryCause } from '@mailer/domain';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import {
  claimMessages,
  createAccount,
  openDatabase,
  purgeExpired,
  releaseLease,
  renewLeases,
  setAccountPlan,
  writeAttempts,
  type AttemptWrite,
  type DatabaseHandle,
  type DeliveryDecision,
  type HeldLease,
  type Lease,
} from '../index';

/**
 * Every writer of deliveries, account usage and senders at once, for a while, on few
 * messages so that they collide: intake, claims (two "workers" asking for the same
 * messages), lease renewals, attempt records (batched and alone), releases and retention. Each goes
 * through the lock order; a deadlock would surface as an error (40P01), a lost update as
 * a counter that disagrees with the rows.
 */
const RUN_MS = 6_000;
const greylisted: DeliveryCause = { code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' };

let database: DatabaseHandle;
let accountId: string;
let senders: { id: string; email: string; domainId: string }[];

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 12);
  accountId = (await createAccount(database.db, 'Concurrency')).account.id;
  await setAccountPlan(database.db, accountId, { perMinute: 1_000_000, perHour: 1_000_000, perDay: 1_000_000, per30Days: 1_000_000, maxActive: 1_000_000 });
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 7), accountId, 'concurrency.test');
  senders = await Promise.all(
    ['a', 'b', 'c'].map(async (name) => ({ ...(await insertSender(database.db, accountId, domain.id, `${name}@concurrency.test`)), domainId: domain.id })),
  );
});

afterAll(() => database.close());

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const decisionFor = (lease: Lease, now: Date): DeliveryDecision[] =>
  lease.deliveries.map((d) => {
    const roll = Math.random();
    if (roll < 0.4) return { deliveryId: d.id, status: 'deferred', cause: greylisted, nextAttemptAt: now };
    if (roll < 0.8) return { deliveryId: d.id, status: 'accepted', cause: null };
    return { deliveryId: d.id, status: 'bounced', cause: { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' } };
  });

it('runs intake, claims, attempt records, releases and retention together without a deadlock or a lost update', async () => {
  const emailIds: string[] = [];
  let recorded = 0;
  let released = 0;
  let purged = 0;
  let renewed = 0;
  const held: HeldLease[] = [];
  const failures: unknown[] = [];
  // For RUN_MS at least, and until each writer has run enough for their locks to meet, however slow the machine.
  const stopAt = Date.now() + RUN_MS;
  const enough = () => emailIds.length > 20 && recorded > 20 && released > 0 && purged > 0 && renewed > 0;
  const giveUpAt = Date.now() + 6 * RUN_MS;
  const loop = (work: () => Promise<unknown>) =>
    (async () => {
      while ((Date.now() < stopAt || !enough()) && Date.now() < giveUpAt) await work().catch((error: unknown) => failures.push(error));
    })();
  const recent = () => emailIds.slice(-12);

  const intake = loop(async () => {
    const sender = pick(senders);
    const recipients = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, (_, i) => `r${i}-${Math.random().toString(36).slice(2, 8)}@example.test`);
    const email = await insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: sender.domainId, from: sender.email, to: recipients });
    emailIds.push(email.id);
  });

  const worker = () =>
    loop(async () => {
      const now = new Date();
      const claims = await claimMessages(database.db, recent(), now, 60_000);
      const leases = [...claims.values()].map((c) => c.lease).filter((l) => l.deliveries.length > 0);
      held.push(...leases.map((l) => ({ token: l.token, deliveryIds: l.deliveries.map((d) => d.id) })));
      const writes: AttemptWrite[] = [];
      for (const lease of leases) {
        const roll = Math.random();
        if (roll < 0.15) {
          await releaseLease(database.db, lease, lease.deliveries.map((d) => d.id), now);
          released++;
          continue;
        }
        const decisions = decisionFor(lease, now);
        const attempt = { startedAt: now, endedAt: now, outcome: decisions[0]!.status, cause: decisions[0]!.cause, transport: null };
        if (roll < 0.5) recorded += Number((await writeAttempts(database.db, [{ lease, attempt, decisions }]))[0]!.applied > 0);
        else writes.push({ lease, attempt, decisions });
      }
      if (writes.length > 0) recorded += (await writeAttempts(database.db, writes)).filter((r) => r.applied > 0).length;
    });

  // As a daemon renews every lease it holds at once: recorded, released and purged ones among them.
  const renewer = loop(async () => {
    renewed += await renewLeases(database.db, held.slice(-20), new Date(Date.now() + 60_000), 2_000);
    // Paced, and not a loop of resolved promises while nothing is held yet.
    await new Promise((resolve) => setTimeout(resolve, 5));
  });

  const retention = loop(async () => {
    const result = await purgeExpired(database.db, { now: new Date(Date.now() + 86_400_000), retentionDays: 0, usageWindowMs: 100 * 86_400_000, batchSize: 5 });
    purged += result.emails;
  });

  await Promise.all([intake, worker(), worker(), renewer, retention]);
  expect(failures).toEqual([]);
  expect(emailIds.length).toBeGreaterThan(20);
  expect(recorded).toBeGreaterThan(20);
  expect(released).toBeGreaterThan(0);
  expect(purged).toBeGreaterThan(0);
  expect(renewed).toBeGreaterThan(0);
  // A renewal never revived a lease that was recorded or released: only `sending` deliveries hold one.
  const [stray] = await database.db`
    select count(*)::int as n from deliveries where account_id = ${accountId} and status <> 'sending' and (lease_token is not null or lease_expires_at is not null)`;
  expect(stray!.n).toBe(0);

  const [usage] = await database.db`select active_deliveries, recipients_total from account_usage where account_id = ${accountId}`;
  const deliveries = await database.db`
    select d.status, e.sender_id from deliveries d join emails e on e.id = d.email_id where d.account_id = ${accountId}`;
  expect(usage!.active_deliveries).toBe(deliveries.filter((d) => !isTerminal(d.status)).length);
  const [usageRows] = await database.db`select coalesce(sum(recipients), 0)::int as total from recipient_usage where account_id = ${accountId}`;
  expect(Number(usage!.recipients_total)).toBe(usageRows!.total);
  for (const sender of senders) {
    const [row] = await database.db`select deferred_count from senders where id = ${sender.id}`;
    expect(row!.deferred_count).toBe(deliveries.filter((d) => d.sender_id === sender.id && d.status === 'deferred').length);
  }
  // Every message's stored status is the one its deliveries derive.
  const messages = await database.db`
    select e.id, e.status, array_agg(d.status) as statuses from emails e join deliveries d on d.email_id = e.id
     where e.account_id = ${accountId} group by e.id, e.status`;
  for (const m of messages) expect(m.status).toBe(deriveMessageStatus(m.statuses));
}, 60_000);
