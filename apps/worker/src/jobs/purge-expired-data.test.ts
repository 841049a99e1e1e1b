import { loadConfig } from '@mailer/config';
import { createAccount, openDatabase, type DatabaseHandle } from '@mailer/db';
import { createLogger } from '@mailer/logger';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { purgeExpiredData } from './purge-expired-data';

const DAY = 86_400_000;
const now = new Date('2026-11-22T12:00:00.000Z');
let database: DatabaseHandle;
let accountId: string;
let sender: { id: string; email: string };
let domainId: string;
let purge: () => ReturnType<typeof purgeExpiredData>;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  accountId = (await createAccount(database.db, 'Retention')).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, 'retention.test');
  domainId = domain.id;
  sender = await insertSender(database.db, accountId, domain.id, 'hello@retention.test');
  const config = loadConfig({ NODE_ENV: 'test', RETENTION_DAYS: '30' });
  const logger = createLogger({ level: 'error', service: 'worker' });
  purge = () => purgeExpiredData({ db: database.db, config, logger, now: () => now });
});
afterAll(() => database.close());

async function emailAged(days: number, status: 'accepted' | 'queued' | 'deferred' | 'bounced') {
  const email = await insertQueuedEmail(database.db, {
    accountId,
    senderId: sender.id,
    domainId,
    from: sender.email,
    to: ['someone@example.test'],
    createdAt: new Date(now.getTime() - days * DAY),
  });
  await database.db`update emails set status = ${status} where id = ${email.id}`;
  await database.db`
    insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients)
    values (${`att_${email.id.slice(3)}`}, ${email.id}, ${1}, ${email.createdAt}, ${email.createdAt},
            ${status === 'accepted' ? 'accepted' : 'deferred'}, ${database.db.json(['someone@example.test'])})`;
  return email.id;
}

const exists = async (id: string) => (await database.db`select id from emails where id = ${id}`).length === 1;

describe('purgeExpiredData (an injected clock, RETENTION_DAYS=30)', () => {
  it('deletes finished messages past retention with their history, and keeps recent and still-owed ones', async () => {
    const old = await Promise.all([emailAged(31, 'accepted'), emailAged(40, 'bounced'), emailAged(35, 'accepted')]);
    const recent = await emailAged(29, 'accepted');
    const stillOwed = await emailAged(45, 'deferred');

    const result = await purge();

    expect(result.emails).toBe(3);
    for (const id of old) expect(await exists(id)).toBe(false);
    expect(await exists(recent)).toBe(true);
    expect(await exists(stillOwed)).toBe(true);
    const [orphans] = await database.db`
      select (select count(*) from events c where not exists (select 1 from emails m where m.id = c.email_id))::int as events,
             (select count(*) from deliveries c where not exists (select 1 from emails m where m.id = c.email_id))::int as deliveries,
             (select count(*) from attempts c where not exists (select 1 from emails m where m.id = c.email_id))::int as attempts`;
    expect(orphans).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect((await database.db`select id from events where email_id = ${recent}`).length).toBeGreaterThan(0);
  });

  it('deletes expired idempotency keys and usage rows outside every plan window', async () => {
    const emailId = await emailAged(1, 'accepted');
    await database.db`
      insert into idempotency_keys (account_id, key, request_hash, email_id, response, expires_at)
      values (${accountId}, ${'expired'}, ${'h'}, ${emailId}, ${database.db.json({})}, ${new Date(now.getTime() - 1)}),
             (${accountId}, ${'live'}, ${'h'}, ${emailId}, ${database.db.json({})}, ${new Date(now.getTime() + DAY)})`;
    // Under an account of their own (intake's statements wrote usage rows for the messages
    // above); its account_usage row, made with it, is how retention finds an account's rows.
    const usageAccountId = (await createAccount(database.db, 'Usage window')).account.id;
    await database.db`
      insert into recipient_usage (email_id, account_id, recipients, cumulative, accepted_at)
      values (${'em_old'}, ${usageAccountId}, ${1}, ${1}, ${new Date(now.getTime() - 31 * DAY)}),
             (${'em_new'}, ${usageAccountId}, ${1}, ${2}, ${new Date(now.getTime() - 29 * DAY)})`;

    const result = await purge();

    expect(result.idempotencyKeys).toBe(1);
    expect(result.usageRows).toBe(1);
    expect((await database.db`select key from idempotency_keys`).map((r) => r.key)).toEqual(['live']);
    expect((await database.db`select email_id from recipient_usage where account_id = ${usageAccountId}`).map((r) => r.email_id)).toEqual(['em_new']);
  });
  it('deletes received messages, raw bytes included, older than RETENTION_DAYS', async () => {
    const insert = (id: string, ageDays: number) => database.db`
      insert into inbound_emails (id, account_id, route_id, mail_from, recipients, remote_address, message, auth, raw, size, created_at)
      values (${id}, ${accountId}, ${'rte_x'}, ${''}, ${['a@example.com']}::text[], ${'127.0.0.1'}, ${'{}'}::jsonb, ${'{}'}::jsonb, ${Buffer.from('x')}, ${1},
              ${new Date(now.getTime() - ageDays * DAY)})`;
    await insert('inb_old', 31);
    await insert('inb_new', 29);
    expect((await purge()).inboundEmails).toBe(1);
    expect((await database.db`select id from inbound_emails where account_id = ${accountId}`).map((r) => r.id)).toEqual(['inb_new']);
  });
});
