import fc from 'fast-check';
import { createAccount, openDatabase, owedDeliveryJobs, type DatabaseHandle } from '@mailer/db';
import {
  ACTIVE_STATUSES,
  ATTEMPT_OUTCOMES,
  DELIVERY_STATUSES,
  DKIM_ALGORITHMS,
  isOwedAttempt,
  SENDING_STATUSES,
  VERIFICATION_STATUS_VALUES,
  type DeliveryStatus,
} from '@mailer/domain';
import { createTestDatabase } from '@mailer/testing';

/**
 * The rules @mailer/domain writes once, where the database states them too: the status sets
 * in check constraints and an index predicate, and "owed an attempt" in the reconciler's scan.
 */
let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

/** The quoted values of an `x in ('a', 'b')` / `= ANY (ARRAY['a'::text, …])` definition, in order. */
const quoted = (definition: string) => [...definition.matchAll(/'([^']*)'/g)].map((m) => m[1]);

it('holds the status sets of @mailer/domain in its check constraints and the owed deliveries index', async () => {
  const constraints = await database.db`
    select conname, pg_get_constraintdef(oid) as definition from pg_constraint
     where conname in ('deliveries_status_check', 'emails_status_check', 'attempts_outcome_check', 'accounts_sending_status_check')`;
  const byName = Object.fromEntries(constraints.map((c) => [c.conname, quoted(c.definition)]));
  expect(byName).toEqual({
    deliveries_status_check: [...DELIVERY_STATUSES],
    emails_status_check: [...DELIVERY_STATUSES],
    attempts_outcome_check: [...ATTEMPT_OUTCOMES],
    accounts_sending_status_check: [...SENDING_STATUSES],
  });
  const [index] = await database.db`select pg_get_indexdef('deliveries_owed_created_idx'::regclass) as definition`;
  expect(quoted(index!.definition)).toEqual([...ACTIVE_STATUSES]);
  await expect(database.db`insert into emails (id, account_id, sender_id, domain_id, from_email, subject, "to", cc, bcc_count, message_id_header, status)
    values ('em_x', 'acc_x', 'snd_x', 'dom_x', 'a@b.test', 's', '[]', '[]', 0, '<x@b.test>', 'lost')`).rejects.toThrow(/emails_status_check/);
});

it('holds the DKIM key types and verification statuses of @mailer/domain in the DKIM check constraints', async () => {
  const constraints = await database.db`
    select conname, pg_get_constraintdef(oid) as definition from pg_constraint
     where conname in ('domains_dkim_ed25519_status_check', 'dkim_keys_record_status_check', 'dkim_keys_algorithm_check')`;
  expect(Object.fromEntries(constraints.map((c) => [c.conname, quoted(c.definition)]))).toEqual({
    domains_dkim_ed25519_status_check: [...VERIFICATION_STATUS_VALUES],
    dkim_keys_record_status_check: [...VERIFICATION_STATUS_VALUES],
    dkim_keys_algorithm_check: [...DKIM_ALGORITHMS],
  });
});

it('finds in SQL exactly the messages isOwedAttempt owes an attempt', async () => {
  const { db } = database;
  const accountId = (await createAccount(db, 'Owed')).account.id;
  const now = new Date('2030-01-01T00:00:00.000Z');
  const offset = fc.integer({ min: -5, max: 5 }).map((s) => new Date(now.getTime() + s * 1000));
  const delivery = fc.record({
    status: fc.constantFrom(...DELIVERY_STATUSES),
    nextAttemptAt: offset,
    leaseExpiresAt: fc.option(offset, { nil: null }),
    heldAt: fc.option(offset, { nil: null }),
  });
  let round = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(delivery, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }), async (messages) => {
      const prefix = `r${++round}_`;
      const rows = messages.flatMap((deliveries, m) =>
        deliveries.map((d, k) => ({ ...d, id: `dlv_${prefix}${m}_${k}`, emailId: `em_${prefix}${m}`, status: d.status as DeliveryStatus })),
      );
      await db`
        insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, next_attempt_at, lease_expires_at, held_at)
        select x.id, x.email_id, ${accountId}, 'a@b.test', 'b.test', 'to', x.status, x.next_attempt_at, x.lease_expires_at, x.held_at
          from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.emailId)}::text[], ${rows.map((r) => r.status)}::text[],
                      ${rows.map((r) => r.nextAttemptAt.toISOString())}::text[]::timestamptz[],
                      ${rows.map((r) => r.leaseExpiresAt?.toISOString() ?? null)}::text[]::timestamptz[],
                      ${rows.map((r) => r.heldAt?.toISOString() ?? null)}::text[]::timestamptz[])
               as x(id, email_id, status, next_attempt_at, lease_expires_at, held_at)`;
      try {
        const found = new Set<string>();
        for await (const page of owedDeliveryJobs(db, { now, graceMs: 0, pageSize: 100 })) for (const job of page) found.add(job.emailId);
        const owed = new Set(rows.filter((r) => isOwedAttempt(r, now, true)).map((r) => r.emailId));
        expect([...found].filter((id) => id.startsWith(`em_${prefix}`)).sort()).toEqual([...owed].sort());
      } finally {
        await db`delete from deliveries where account_id = ${accountId}`;
      }
    }),
    { numRuns: 40 },
  );
});
