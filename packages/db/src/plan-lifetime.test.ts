import { claimMessages, createAccount, openDatabase, PLAN_LIFETIME_MS, type DatabaseHandle } from './index';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';

/**
 * The delivery daemon's statements run on generic plans (DatabaseOptions), which PostgreSQL
 * keeps until an ANALYZE of their tables; a new installation's tables are young and, where
 * autovacuum is off, never analyzed. A connection discards its plans once they are
 * PLAN_LIFETIME_MS old, as a transaction gives it back (inTransaction), so a plan made while
 * `deliveries` held a few hundred rows is remade as the table grows.
 */
let daemon: DatabaseHandle;
const plans: { text: string; plan: string }[] = [];

afterAll(async () => {
  await daemon?.close();
});

const grow = (db: DatabaseHandle['db'], accountId: string, prefix: string, messages: number) => db`
  insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, attempt_count, next_attempt_at, created_at, updated_at)
  select 'dlv_' || ${prefix} || n || '_' || k, 'em_' || ${prefix} || n, ${accountId}, 'r' || k || '@example.test', 'example.test', 'to',
         'accepted', 1, now(), now(), now()
    from generate_series(1, ${messages}) n, generate_series(1, 2) k`;

it('remakes the plans a connection made over a young table once they are PLAN_LIFETIME_MS old', async () => {
  // The clock that ages the connection's plans, moved by the test alone.
  let clockMs = 0;
  const url = await createTestDatabase();
  // As the delivery daemon's connections (its container).
  daemon = openDatabase(url, 1, {
    genericPlans: true,
    planClock: () => clockMs,
    onNotice: (notice) => {
      const [, text = '', plan = ''] = /Query Text: ([\s\S]*?)\n((?:[A-Z][\s\S]*))$/.exec(String(notice.message)) ?? [];
      if (text) plans.push({ text: text.trim(), plan: plan.trim() });
    },
  });
  const { db } = daemon;
  const accountId = (await createAccount(db, 'Young')).account.id;
  const domain = await insertReadyDomain(db, Buffer.alloc(32, 1), accountId, 'young.test');
  const sender = await insertSender(db, accountId, domain.id, 'hello@young.test');
  const email = await insertQueuedEmail(db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to: ['a@example.test'] });
  await grow(db, accountId, 'young', 150);
  await db`load 'auto_explain'`;
  await db`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false)`;
  // The claim's lock of its messages' deliveries (lockMessages), as the claim just run planned it.
  const claimedWith = async () => {
    const from = plans.length;
    await claimMessages(db, [email.id], new Date(), 60_000);
    return plans.slice(from).find((p) => p.text.startsWith('select d.id, d.email_id, d.recipient'))!.plan;
  };

  const young = await claimedWith();
  expect(young).toContain('ANY ($1)');
  await grow(db, accountId, 'old', 20_000);
  // The plans made over the young table serve the grown one as long as they are kept.
  expect(await claimedWith()).toBe(young);
  clockMs = PLAN_LIFETIME_MS;
  // This claim's end, PLAN_LIFETIME_MS after the connection's clock started, finds them old and discards them.
  await claimedWith();
  const grown = await claimedWith();
  expect(grown).not.toBe(young);
  expect(grown).toContain('ANY ($1)');
  expect(grown).not.toMatch(/Seq Scan on deliveries/);
}, 30_000);
