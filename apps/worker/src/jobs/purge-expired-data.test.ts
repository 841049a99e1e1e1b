import { eq, sql } from 'drizzle-orm';
import { loadConfig } from '@mailer/config';
import { attempts, createAccount, emails, events, idempotencyKeys, openDatabase, recipientUsage, type DatabaseHandle } from '@mailer/db';
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
  await database.db.update(emails).set({ status }).where(eq(emails.id, email.id));
  await database.db.insert(attempts).values({
    id: `att_${email.id.slice(3)}`,
    emailId: email.id,
    number: 1,
    startedAt: email.createdAt,
    endedAt: email.createdAt,
    outcome: status === 'accepted' ? 'accepted' : 'deferred',
    recipients: ['someone@example.test'],
  });
  return email.id;
}

const exists = async (id: string) => (await database.db.select({ id: emails.id }).from(emails).where(eq(emails.id, id))).length === 1;

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
    const orphans = await database.db.execute(sql`
      select (select count(*) from events c where not exists (select 1 from emails m where m.id = c.email_id))::int as events,
             (select count(*) from deliveries c where not exists (select 1 from emails m where m.id = c.email_id))::int as deliveries,
             (select count(*) from attempts c where not exists (select 1 from emails m where m.id = c.email_id))::int as attempts`);
    expect(orphans.rows[0]).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect((await database.db.select().from(events).where(eq(events.emailId, recent))).length).toBeGreaterThan(0);
  });

  it('deletes expired idempotency keys and usage rows outside every plan window', async () => {
    const emailId = await emailAged(1, 'accepted');
    await database.db.insert(idempotencyKeys).values([
      { accountId, key: 'expired', requestHash: 'h', emailId, response: {}, expiresAt: new Date(now.getTime() - 1) },
      { accountId, key: 'live', requestHash: 'h', emailId, response: {}, expiresAt: new Date(now.getTime() + DAY) },
    ]);
    await database.db.insert(recipientUsage).values([
      { emailId: 'em_old', accountId, recipients: 1, cumulative: 1, acceptedAt: new Date(now.getTime() - 31 * DAY) },
      { emailId: 'em_new', accountId, recipients: 1, cumulative: 2, acceptedAt: new Date(now.getTime() - 29 * DAY) },
    ]);

    const result = await purge();

    expect(result.idempotencyKeys).toBe(1);
    expect(result.usageRows).toBe(1);
    expect((await database.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key)).toEqual(['live']);
    expect((await database.db.select({ id: recipientUsage.emailId }).from(recipientUsage)).map((r) => r.id)).toEqual(['em_new']);
  });
});
