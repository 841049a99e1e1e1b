import { claimMessages, createAccount, openDatabase, PLAN_LIFETIME_MS, type DatabaseHandle } from '@mailer/db';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';

/**
 * The delivery daemon's statements run on generic plans (DatabaseOptions), which PostgreSQL
 * keeps until an ANALYZE of their tables; a new installation's tables are young and, where
 * autovacuum is off, never analyzed. A connection discards its plans once they are
 * PLAN_LIFETIME_MS old, as a transaction gives it back (inTransaction), so a plan made while
 * `deliveries` held a few hundred rows is remade as the table grows.
 */
let daemon: DatabaseHandle;
let observer: DatabaseHandle;
const plans: { text: string; plan: string }[] = [];

afterAll(async () => {
  await Promise.all([daemon?.close(), observer?.close()]);
});

const grow = (db: DatabaseHandle['db'], accountId: string, prefix: string, messages: number) => db`
  insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, attempt_count, next_attempt_at, created_at, updated_at)
  select 'dlv_' || ${prefix} || n || '_' || k, 'em_' || ${prefix} || n, ${accountId}, 'r' || k || '@example.test', 'example.test', 'to',
         'accepted', 1, now(), now(), now()
    from generate_series(1, ${messages}) n, generate_series(1, 2) k`;

it('remakes the plans a connection made over a young table once they are PLAN_LIFETIME_MS old', async () => {
  const url = await createTestDatabase();
  // As the delivery daemon's connections (its container).
  daemon = openDatabase(url, 1, {
    genericPlans: true,
    onNotice: (notice) => {
      const [, text = '', plan = ''] = /Query Text: ([\s\S]*?)\n((?:[A-Z][\s\S]*))$/.exec(String(notice.message)) ?? [];
      if (text) plans.push({ text: text.trim(), plan: plan.trim() });
    },
  });
  observer = openDatabase(url, 1);
  const { db } = daemon;
  const accountId = (await createAccount(db, 'Young')).account.id;
  const domain = await insertReadyDomain(db, Buffer.alloc(32, 1), accountId, 'young.test');
  const sender = await insertSender(db, accountId, domain.id, 'hello@young.test');
  const email = await insertQueuedEmail(db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to: ['a@example.test'] });
  await grow(db, accountId, 'young', 150);
  await db`load 'auto_explain'`;
  const [session] = await db`select pg_backend_pid() as pid, set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false)`;
  // The claim's lock of its messages' deliveries (lockMessages), as the claim just run planned it.
  const claimedWith = async () => {
    const from = plans.length;
    await claimMessages(db, [email.id], new Date(), 60_000);
    return plans.slice(from).find((p) => p.text.startsWith('select d.id, d.email_id, d.recipient'))!.plan;
  };
  // What the connection ran last, once it has nothing more to run.
  const lastStatement = async () => {
    for (let waited = 0; ; waited += 20) {
      const [row] = await observer.db`select state, query from pg_stat_activity where pid = ${session!.pid}`;
      if (row?.state === 'idle' || waited > 2_000) return row?.query as string;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const young = await claimedWith();
  expect(young).toContain('ANY ($1)');
  await grow(db, accountId, 'old', 20_000);
  expect(await claimedWith()).toBe(young);
  expect(await lastStatement()).toBe('commit');
  await new Promise((resolve) => setTimeout(resolve, PLAN_LIFETIME_MS));
  // This claim finds its connection's plans old and discards them as it ends.
  await claimedWith();
  expect(await lastStatement()).toBe('discard plans');
  const grown = await claimedWith();
  expect(await lastStatement()).toBe('commit');
  expect(grown).not.toBe(young);
  expect(grown).toContain('ANY ($1)');
  expect(grown).not.toMatch(/Seq Scan on deliveries/);
}, 60_000);
