import { ACTIVE_STATUSES, ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DKIM_ALGORITHMS, EMAIL_TYPES, SENDING_STATUSES, SUPPRESSION_REASONS, VERIFICATION_STATUS_VALUES } from '@mailer/domain';
import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';

/**
 * The sets @mailer/domain writes once, where the migrated database states them too: in check
 * constraints and an index predicate. "Owed an attempt" in the reconciler's scan is
 * owed-deliveries-store.test.ts's.
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
     where conname in ('deliveries_status_check', 'emails_status_check', 'attempts_outcome_check', 'account_streams_sending_status_check')`;
  const byName = Object.fromEntries(constraints.map((c) => [c.conname, quoted(c.definition)]));
  expect(byName).toEqual({
    deliveries_status_check: [...DELIVERY_STATUSES],
    emails_status_check: [...DELIVERY_STATUSES],
    attempts_outcome_check: [...ATTEMPT_OUTCOMES],
    account_streams_sending_status_check: [...SENDING_STATUSES],
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

it('holds the streams of @mailer/domain in the messages and suppressions check constraints', async () => {
  const constraints = await database.db`
    select conname, pg_get_constraintdef(oid) as definition from pg_constraint
     where conname in ('emails_type_check', 'suppressions_stream_check')`;
  expect(Object.fromEntries(constraints.map((c) => [c.conname, quoted(c.definition)]))).toEqual({
    emails_type_check: [...EMAIL_TYPES],
    suppressions_stream_check: [...EMAIL_TYPES],
  });
});

it('holds the suppression reasons of @mailer/domain in the suppressions check constraint', async () => {
  const [constraint] = await database.db`select pg_get_constraintdef(oid) as definition from pg_constraint where conname = 'suppressions_reason_check'`;
  expect(quoted(constraint!.definition)).toEqual([...SUPPRESSION_REASONS]);
});
