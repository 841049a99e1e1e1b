import {
  acceptedAttemptsTls,
  claimIdempotencyKeys,
  claimMessages,
  claimWebhookDeliveries,
  createAccount,
  findEmailDetail,
  inTransaction,
  listEmails,
  loadMessageContents,
  openDatabase,
  otherRequestsRecords,
  owedDeliveryJobs,
  recentTestMessages,
  renewLeases,
  stillLeased,
  purgeExpired,
  releaseLease,
  searchEmails,
  sendingIdentitiesStatement,
  setAccountPlan,
  usageReachedAt,
  writeAttempts,
  type DatabaseHandle,
} from './index';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';

/**
 * The hot statements as PostgreSQL plans them for the service over tables of a realistic
 * size, as generic plans (which the service's connections run from a statement's sixth
 * execution, see openDatabase) and planned with their parameters, twice: never analyzed (a
 * young database, or autovacuum off), then with fresh statistics. No planner setting but the
 * service's own (`random_page_cost`) forces its hand (retention, an hourly batch, is checked
 * with statistics only). auto_explain hands each executed statement's plan back as a notice.
 * A sequential scan of a large table fails the test. Plans made over young tables are
 * plan-lifetime.test.ts's.
 */
/** Tables that grow with traffic; per-tenant tables (accounts, domains, senders, usage) stay small enough to scan. */
const LARGE_TABLES = ['emails', 'deliveries', 'events', 'attempts', 'idempotency_keys', 'recipient_usage', 'attachments', 'webhook_events', 'webhook_deliveries'];
const MESSAGES = 40_000;
const TENANTS = 2_000;

let url: string;
let explained: DatabaseHandle;
const plans: { text: string; plan: string }[] = [];
let accountId: string;
let sender: { id: string; email: string; domainId: string };

beforeAll(async () => {
  url = await createTestDatabase();
  const setup = openDatabase(url, 2);
  try {
    accountId = (await createAccount(setup.db, 'Plans')).account.id;
    await setAccountPlan(setup.db, accountId, { perMinute: 10_000_000, perHour: 10_000_000, perDay: 10_000_000, per30Days: 10_000_000, maxActive: 10_000_000 });
    const domain = await insertReadyDomain(setup.db, Buffer.alloc(32, 1), accountId, 'plans.test');
    sender = { ...(await insertSender(setup.db, accountId, domain.id, 'hello@plans.test')), domainId: domain.id };
    // Other tenants, each with a domain, two senders and usage.
    await setup.db`insert into accounts (id, name, plan_id) select 'acc_other' || n, 'Other', 'plan_free' from generate_series(1, ${TENANTS}) n`;
    await setup.db`
      insert into domains (id, account_id, name, ownership_token, dkim_selector, dkim_public_key, dkim_private_key_sealed)
      select 'dom_other' || n, 'acc_other' || n, 'other' || n || '.test', 't', 's', 'p', 'k' from generate_series(1, ${TENANTS}) n`;
    await setup.db`
      insert into senders (id, account_id, domain_id, email, email_key)
      select 'snd_other' || n || '_' || k, 'acc_other' || n, 'dom_other' || n, k || '@other' || n || '.test', k || '@other' || n || '.test'
        from generate_series(1, ${TENANTS}) n, generate_series(1, 2) k`;
    await setup.db`insert into account_usage (account_id) select 'acc_other' || n from generate_series(1, ${TENANTS}) n`;
    // A month of finished traffic, plus a backlog, written set-based (as intake's rows).
    await setup.db`
      insert into emails (id, account_id, sender_id, domain_id, from_email, type, subject, "to", cc, bcc_count, message_id_header, status, created_at, updated_at)
      select 'em_old' || n, ${accountId}, ${sender.id}, ${domain.id}, ${sender.email}, 'transactional', 'Old', '["a@example.test"]', '[]', 0,
             '<' || n || '@plans.test>', case when n % 20 = 0 then 'deferred' else 'accepted' end,
             now() - (n || ' seconds')::interval * 60, now() - (n || ' seconds')::interval * 60
        from generate_series(1, ${MESSAGES}) n`;
    await setup.db`
      insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, attempt_count, next_attempt_at, created_at, updated_at)
      select 'dlv_old' || n || '_' || k, 'em_old' || n, ${accountId}, 'r' || k || '@example.test', 'example.test', 'to',
             case when n % 20 = 0 then 'deferred' else 'accepted' end, 1, now() + interval '1 hour', now(), now()
        from generate_series(1, ${MESSAGES}) n, generate_series(1, 2) k`;
    await setup.db`insert into events (email_id, type, at) select 'em_old' || n, t, now() from generate_series(1, ${MESSAGES}) n, unnest(array['queued', 'sending', 'accepted']) t`;
    await setup.db`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, tls)
      select 'att_old' || n, 'em_old' || n, 1, now(), now(), 'accepted', '[]', 0, true from generate_series(1, ${MESSAGES}) n`;
    await setup.db`
      insert into attachments (email_id, position, filename, content_type, size, content)
      select 'em_old' || n, 0, 'a.txt', 'text/plain', 1, null from generate_series(1, ${MESSAGES}, 10) n`;
    await setup.db`
      insert into idempotency_keys (account_id, key, request_hash, email_id, response, created_at, expires_at)
      select ${accountId}, 'key' || n, 'h', 'em_old' || n, '{}', now(), now() + interval '1 day' from generate_series(1, ${MESSAGES}) n`;
    await setup.db`
      insert into recipient_usage (email_id, account_id, recipients, accepted_at, cumulative)
      select 'em_old' || n, ${accountId}, 2, now() - ((${MESSAGES} - n) || ' seconds')::interval, 2 * n from generate_series(1, ${MESSAGES}) n`;
    // An endpoint of the account: a month of sent webhooks and a small due backlog.
    await setup.db`
      insert into webhook_endpoints (id, account_id, url, events, secret_sealed, created_at, updated_at)
      values ('wh_plans', ${accountId}, 'https://hooks.plans.test/', array['email.accepted'], 's', now(), now())`;
    await setup.db`
      insert into webhook_events (id, account_id, type, email_id, occurred_at)
      select 'evt_old' || n, ${accountId}, 'email.accepted', 'em_old' || n, now() from generate_series(1, ${MESSAGES}) n`;
    await setup.db`
      insert into webhook_deliveries (id, endpoint_id, event_id, account_id, status, attempt_count, next_attempt_at, created_at)
      select 'whd_old' || n, 'wh_plans', 'evt_old' || n, ${accountId}, case when n <= 100 then 'pending' else 'succeeded' end,
             case when n <= 100 then 0 else 1 end, now() - interval '1 minute', now()
        from generate_series(1, ${MESSAGES}) n`;
    await setup.db`
      insert into account_usage (account_id, recipients_total, active_deliveries, last_accepted_at) values (${accountId}, ${2 * MESSAGES}, ${MESSAGES / 10}, now())
      on conflict (account_id) do update set recipients_total = excluded.recipients_total, active_deliveries = excluded.active_deliveries`;
  } finally {
    await setup.close();
  }
  explained = openDatabase(url, 1, {
    onNotice: (notice) => {
      const [, text = '', plan = ''] = /Query Text: ([\s\S]*?)\n((?:[A-Z][\s\S]*))$/.exec(String(notice.message)) ?? [];
      if (text) plans.push({ text: text.trim(), plan: plan.trim() });
    },
  });
  await explained.db`load 'auto_explain'`;
  await explained.db`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false)`;
}, 120_000);

afterAll(() => explained.close());

/** Every hot statement, run once. */
async function runHotStatements(): Promise<void> {
  const db = explained.db;
  const now = new Date(Date.now() + 1000);
  // Intake: claims, identities and records of keys, the message rows, usage and admission.
  const email = await insertQueuedEmail(db, { accountId, senderId: sender.id, domainId: sender.domainId, from: sender.email, to: ['x@example.test', 'y@example.test'] });
  await inTransaction(db, async (tx) => {
    await tx.send(
      claimIdempotencyKeys(tx, { accountId, test: false }, [{ key: 'new-key', requestHash: 'h', emailId: 'em_new', response: {} }], now, 60_000),
      sendingIdentitiesStatement(tx.sql, accountId, [sender.email]),
      otherRequestsRecords(tx, { accountId, test: false }, ['key1', 'new-key'], ['em_new'], now),
      usageReachedAt(tx, accountId, [10, 20_000]),
      recentTestMessages(tx, accountId, new Date(now.getTime() - 60_000)),
    );
    throw new Error('rolled back');
  }).catch((error: Error) => expect(error.message).toBe('rolled back'));
  // Delivery: claim, renew, the check before a transaction, record, release, the next obligation.
  const lease = (await claimMessages(db, [email.id, 'em_old20'], now, 60_000)).get(email.id)!.lease;
  expect((await loadMessageContents(db, [email.id, 'em_old20'])).has(email.id)).toBe(true);
  expect(lease.deliveries).toHaveLength(2);
  expect(await renewLeases(db, [{ token: lease.token, deliveryIds: lease.deliveries.map((d) => d.id) }], new Date(now.getTime() + 60_000), 1_000)).toBe(2);
  expect((await stillLeased(db, [{ token: lease.token, deliveryIds: lease.deliveries.map((d) => d.id) }], now)).size).toBe(2);
  const [first, second] = lease.deliveries;
  const attempt = { startedAt: now, endedAt: now, outcome: 'accepted' as const, cause: null, transport: null };
  await writeAttempts(db, [{ lease, attempt, decisions: [{ deliveryId: first!.id, status: 'accepted', cause: null }] }]);
  await releaseLease(db, lease, [second!.id], now);
  // The webhook sender's lease.
  expect(await claimWebhookDeliveries(db, { now, leaseMs: 60_000, limit: 10, concurrency: 20, perEndpoint: 8, inFlight: new Map([['wh_plans', 3]]) })).toHaveLength(5);
  // Reconciler, retention and the reads integrators make most.
  for await (const page of owedDeliveryJobs(db, { now, graceMs: 0, pageSize: 1000 })) expect(page.length).toBeGreaterThan(0);
  for await (const page of owedDeliveryJobs(db, { now, graceMs: 0, pageSize: 1000, expiredLeasesOnly: true })) expect(page).toBeDefined();
  await listEmails(db, { accountId, test: false }, {}, undefined, 50);
  await findEmailDetail(db, { accountId, test: false }, email.id);
  // The TLS of a domain's compliance report, read per request.
  await acceptedAttemptsTls(db, { accountId, id: sender.domainId }, new Date(now.getTime() - 86_400_000), 72 * 3_600_000);
}

const largeTableScans = (seen: readonly { text: string; plan: string }[]) =>
  seen.filter((p) => LARGE_TABLES.some((table) => new RegExp(`Seq Scan on ${table}\\b`).test(p.plan))).map((p) => `${p.text}\n${p.plan}`);

/** The hot statements' plans, each planned in `mode` (a generic plan, or one made with its parameters). */
async function plannedAs(mode: 'force_generic_plan' | 'force_custom_plan') {
  const from = plans.length;
  await explained.db`select set_config('plan_cache_mode', ${mode}, false)`;
  await runHotStatements();
  return plans.slice(from);
}

it('plans every hot statement with indexes over large tables, generic or with its parameters, before any ANALYZE and after one', async () => {
  // The service's connections make a statement's generic plan at its sixth execution (see
  // openDatabase); these make it at the first, and then plan each execution.
  const young = [...(await plannedAs('force_generic_plan')), ...(await plannedAs('force_custom_plan'))];
  plans.splice(0);
  await explained.db`analyze`;
  await plannedAs('force_generic_plan');
  await plannedAs('force_custom_plan');
  // Retention is an hourly batch, not a hot path: without statistics its LIMITed picks may scan.
  await purgeExpired(explained.db, { now: new Date(), retentionDays: 29, usageWindowMs: 29 * 86_400_000, batchSize: 100 });
  expect(young.filter((p) => p.plan.includes('$1')).length).toBeGreaterThan(15);
  expect(largeTableScans(young)).toEqual([]);
  expect(largeTableScans(plans)).toEqual([]);
}, 120_000);

it("finds a rare tag among an account's messages through the index of tagged messages, and a common one without scanning the table", async () => {
  await explained.db`update emails set tags = '{"campaign": "spring"}' where id in (select 'em_old' || n from generate_series(1, ${MESSAGES}, 1600) n)`;
  await explained.db`update emails set tags = '{"env": "production"}' where id in (select 'em_old' || n from generate_series(2, ${MESSAGES}, 2) n)`;
  await explained.db`analyze emails`;
  const from = plans.length;
  expect(await listEmails(explained.db, { accountId, test: false }, { tag: { key: 'campaign', value: 'spring' } }, undefined, 51)).toHaveLength(25);
  expect(plans.at(-1)?.plan).toContain('emails_tags_idx');
  expect(await listEmails(explained.db, { accountId, test: false }, { tag: { key: 'env', value: 'production' } }, undefined, 51)).toHaveLength(51);
  expect(largeTableScans(plans.slice(from))).toEqual([]);
}, 60_000);

it("finds a rare to/cc recipient among every account's messages through emails_recipient_keys_idx, not by scanning them", async () => {
  await explained.db`update emails set cc = '["Rare.Person@example.test"]' where id in (select 'em_old' || n from generate_series(1, ${MESSAGES}, 1600) n)`;
  await explained.db`analyze emails`;
  const from = plans.length;
  expect(await searchEmails(explained.db, { recipientKey: 'rare.person@example.test' }, undefined, 51)).toHaveLength(25);
  expect(plans.at(-1)?.plan).toContain('emails_recipient_keys_idx');
  expect(await searchEmails(explained.db, { accountId, recipientKey: 'rare.person@example.test' }, undefined, 51)).toHaveLength(25);
  expect(largeTableScans(plans.slice(from))).toEqual([]);
}, 60_000);
