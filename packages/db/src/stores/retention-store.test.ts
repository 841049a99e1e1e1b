import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { purgeExpired, type RetentionPolicy } from './retention-store';

/**
 * What retention deletes and keeps at its boundaries. Every test runs it at the same `now`
 * over the whole database: rows a test keeps are kept by the next ones too, so each test's
 * counts are its own rows'. The worker's job around it: apps/worker/src/jobs/purge-expired-data.test.ts.
 */
const DAY = 86_400_000;
const now = new Date('2030-06-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const policy: RetentionPolicy = { now, retentionDays: 30, usageWindowMs: 31 * DAY, batchSize: 2 };
const cutoff = ago(30 * DAY);

let database: DatabaseHandle;
let accountId: string;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
  accountId = (await createAccount(database.db, 'Retention')).account.id;
});
afterAll(() => database.close());

/** A message with one delivery in its status, one attempt and one event, created at `createdAt`. */
async function message(id: string, status: 'accepted' | 'bounced' | 'failed' | 'deferred' | 'queued', createdAt: Date) {
  const { db } = database;
  await db`
    insert into emails (id, account_id, sender_id, domain_id, from_email, subject, "to", cc, bcc_count, message_id_header, status, created_at, updated_at)
    values (${id}, ${accountId}, 'snd_x', 'dom_x', 'a@retention.test', 'Old', '["r@example.test"]', '[]', 0, ${`<${id}@retention.test>`}, ${status}, ${createdAt}, ${createdAt})`;
  await db`
    insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, attempt_count, next_attempt_at, created_at, updated_at)
    values (${`dlv_${id}`}, ${id}, ${accountId}, 'r@example.test', 'example.test', 'to', ${status}, 1, ${createdAt}, ${createdAt}, ${createdAt})`;
  await db`
    insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients)
    values (${`att_${id}`}, ${id}, 1, ${createdAt}, ${createdAt}, ${status === 'accepted' ? 'accepted' : 'deferred'}, '["r@example.test"]')`;
  await db`insert into events (email_id, type, at) values (${id}, 'queued', ${createdAt})`;
}

const remaining = async (table: 'emails' | 'deliveries' | 'attempts' | 'events', ids: string[]) => {
  const rows =
    table === 'emails'
      ? await database.db`select id as email_id from emails where id = any(${ids}::text[])`
      : await database.db`select email_id from ${database.db(table)} where email_id = any(${ids}::text[])`;
  return rows.map((r) => r.email_id as string).sort();
};

describe('purgeExpired', () => {
  it('deletes finished messages created before the cutoff with their history, in batches, and keeps the rest', async () => {
    const expired = ['em_r1', 'em_r2', 'em_r3', 'em_r4', 'em_r5'];
    for (const [i, id] of expired.entries()) await message(id, i % 2 === 0 ? 'accepted' : i === 1 ? 'bounced' : 'failed', ago(30 * DAY + 1 + i));
    // Exactly at the cutoff, and still owed however old.
    await message('em_at_cutoff', 'accepted', cutoff);
    await message('em_owed', 'deferred', ago(90 * DAY));
    await message('em_queued', 'queued', ago(90 * DAY));

    // Five in batches of two: the last batch, short, ends it.
    expect(await purgeExpired(database.db, policy)).toEqual({ emails: 5, webhookDeliveries: 0, idempotencyKeys: 0, usageRows: 0, inboundEmails: 0, retiredTrackedLinks: 0 });
    const all = [...expired, 'em_at_cutoff', 'em_owed', 'em_queued'];
    for (const table of ['emails', 'deliveries', 'attempts', 'events'] as const) expect(await remaining(table, all)).toEqual(['em_at_cutoff', 'em_owed', 'em_queued']);
    expect((await purgeExpired(database.db, policy)).emails).toBe(0);
  });

  it('deletes finished webhook deliveries past the cutoff, and their event once no delivery of it is left', async () => {
    const { db } = database;
    await db`
      insert into webhook_events (id, account_id, type, occurred_at)
      values ('evt_done', ${accountId}, 'email.accepted', ${ago(40 * DAY)}), ('evt_shared', ${accountId}, 'email.accepted', ${ago(40 * DAY)})`;
    const delivery = (id: string, eventId: string, status: string, nextAttemptAt: Date) => db`
      insert into webhook_deliveries (id, endpoint_id, event_id, account_id, status, next_attempt_at)
      values (${id}, 'wh_x', ${eventId}, ${accountId}, ${status}, ${nextAttemptAt})`;
    await delivery('whd_succeeded', 'evt_done', 'succeeded', ago(31 * DAY));
    await delivery('whd_failed', 'evt_done', 'failed', ago(31 * DAY));
    await delivery('whd_shared_failed', 'evt_shared', 'failed', ago(31 * DAY));
    // Pending however old, and finished but last due at the cutoff: kept, and their event with them.
    await delivery('whd_pending', 'evt_shared', 'pending', ago(60 * DAY));
    await delivery('whd_recent', 'evt_shared', 'succeeded', cutoff);

    expect((await purgeExpired(database.db, policy)).webhookDeliveries).toBe(3);
    expect((await db`select id from webhook_deliveries where account_id = ${accountId} order by id`).map((r) => r.id)).toEqual(['whd_pending', 'whd_recent']);
    expect((await db`select id from webhook_events where account_id = ${accountId}`).map((r) => r.id)).toEqual(['evt_shared']);
  });

  it('deletes idempotency keys expired by now, usage rows older than the longest plan window, and received messages past the cutoff', async () => {
    const { db } = database;
    await db`
      insert into idempotency_keys (account_id, test, key, request_hash, email_id, response, expires_at)
      values (${accountId}, false, 'expired', 'h', 'em_a', '{}', ${ago(1)}), (${accountId}, true, 'expires-now', 'h', 'em_b', '{}', ${now}),
             (${accountId}, false, 'live', 'h', 'em_c', '{}', ${new Date(now.getTime() + 1)})`;
    await db`
      insert into recipient_usage (email_id, account_id, recipients, cumulative, accepted_at)
      values ('em_u1', ${accountId}, 1, 1, ${ago(31 * DAY + 1)}), ('em_u2', ${accountId}, 1, 2, ${ago(31 * DAY)}), ('em_u3', ${accountId}, 1, 3, ${ago(DAY)})`;
    const inbound = (id: string, createdAt: Date) => db`
      insert into inbound_emails (id, account_id, route_id, mail_from, recipients, remote_address, message, auth, raw, size, created_at)
      values (${id}, ${accountId}, 'rte_x', '', ${['a@example.com']}::text[], '127.0.0.1', '{}'::jsonb, '{}'::jsonb, ${Buffer.from('x')}, 1, ${createdAt})`;
    await inbound('inb_old', ago(30 * DAY + 1));
    await inbound('inb_at_cutoff', cutoff);

    expect(await purgeExpired(database.db, policy)).toEqual({ emails: 0, webhookDeliveries: 0, idempotencyKeys: 2, usageRows: 1, inboundEmails: 1, retiredTrackedLinks: 0 });
    expect((await db`select key from idempotency_keys where account_id = ${accountId}`).map((r) => r.key)).toEqual(['live']);
    expect((await db`select email_id from recipient_usage where account_id = ${accountId} order by cumulative`).map((r) => r.email_id)).toEqual(['em_u2', 'em_u3']);
    expect((await db`select id from inbound_emails where account_id = ${accountId}`).map((r) => r.id)).toEqual(['inb_at_cutoff']);
  });

  it("keeps a deleted tracked message's links for each to/cc delivery until its click tokens expire", async () => {
    const { db } = database;
    const tracked = async (id: string, completedAt: Date) => {
      await message(id, 'accepted', ago(40 * DAY));
      await db`update emails set track_clicks = true, tracked_links = '["https://acme.test/a"]'::jsonb, completed_at = ${completedAt} where id = ${id}`;
      await db`
        insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, attempt_count, next_attempt_at, created_at, updated_at)
        values (${`dlv_bcc_${id}`}, ${id}, ${accountId}, 'b@example.test', 'example.test', 'bcc', 'accepted', 1, ${now}, ${now}, ${now})`;
    };
    await tracked('em_tracked', ago(35 * DAY));
    // Its tokens, issued by the day it completed, have all expired: nothing to keep.
    await tracked('em_tracked_long_ago', ago(61 * DAY));

    expect((await purgeExpired(database.db, policy)).emails).toBe(2);
    const kept = await db`select delivery_id, links, expires_at from retired_tracked_links`;
    expect(kept).toEqual([{ delivery_id: 'dlv_em_tracked', links: ['https://acme.test/a'], expires_at: new Date(ago(35 * DAY).getTime() + 61 * DAY) }]);

    const expiry = kept[0]!.expires_at as Date;
    expect((await purgeExpired(database.db, { ...policy, now: new Date(expiry.getTime() - 1) })).retiredTrackedLinks).toBe(0);
    expect((await purgeExpired(database.db, { ...policy, now: expiry })).retiredTrackedLinks).toBe(1);
    expect(await db`select delivery_id from retired_tracked_links`).toEqual([]);
  });
});
