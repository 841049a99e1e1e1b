import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { lockAccountIntake } from '../lock-order';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { recentTestMessages, recentTestMessagesFrom, usageFigures, usageFiguresFrom, usageReachedAt, usageReachedAtFrom } from './usage-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const now = new Date('2030-01-01T12:00:00.000Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000);

/**
 * An account whose usage rows say it had `recipients` accepted at each time, oldest first, as
 * intake writes them: each row carries the running total it brought the account to.
 */
async function accountWithUsage(usage: [recipients: number, at: Date][]) {
  const accountId = (await createAccount(database.db, 'Usage')).account.id;
  let cumulative = 0;
  for (const [i, [recipients, at]] of usage.entries()) {
    cumulative += recipients;
    await database.db`
      insert into recipient_usage (email_id, account_id, recipients, cumulative, accepted_at) values (${`em_u${i}`}, ${accountId}, ${recipients}, ${cumulative}, ${at})`;
  }
  await database.db`update account_usage set recipients_total = ${cumulative}, active_deliveries = 4, last_accepted_at = ${usage.at(-1)?.[1] ?? null} where account_id = ${accountId}`;
  return accountId;
}

/** Read as intake reads them: under the account's intake lock, in its round trip. */
const figures = (accountId: string, windows: number[]) =>
  inTransaction(database.db, async (tx) => {
    const { usage } = await tx.send({ lock: lockAccountIntake(tx, accountId), usage: usageFigures(tx, accountId, now, windows) });
    return usageFiguresFrom(usage, windows);
  });

describe('usageFigures', () => {
  it('reads the plan, totals and, per window, what was accepted in (now - seconds, now] and its oldest time', async () => {
    const accountId = await accountWithUsage([
      [5, secondsAgo(7200)],
      [2, secondsAgo(3600)],
      [3, secondsAgo(59)],
      [1, secondsAgo(1)],
    ]);
    expect(await figures(accountId, [60, 3600, 86_400])).toEqual({
      plan: { perMinute: 30, perHour: 300, perDay: 300, per30Days: 3000, maxActive: 250 },
      total: 11,
      active: 4,
      lastAcceptedAt: secondsAgo(1),
      pausedStreams: new Set(),
      windows: [
        { seconds: 60, used: 4, oldestAt: secondsAgo(59) },
        // Usage exactly an hour old has left the hour's window.
        { seconds: 3600, used: 4, oldestAt: secondsAgo(59) },
        { seconds: 86_400, used: 11, oldestAt: secondsAgo(7200) },
      ],
    });
  });

  it('reads an empty window as nothing used, and the streams paused', async () => {
    const accountId = await accountWithUsage([[3, secondsAgo(120)]]);
    await database.db`update account_streams set sending_status = 'paused' where account_id = ${accountId} and stream = 'broadcast'`;
    const read = await figures(accountId, [60]);
    expect(read).toMatchObject({ total: 3, pausedStreams: new Set(['broadcast']), windows: [{ seconds: 60, used: 0, oldestAt: null }] });
  });

  it('says so when the account has no usage row', () => {
    expect(() => usageFiguresFrom([], [60])).toThrow('the account has no usage row');
  });
});

describe('usageReachedAt', () => {
  it('gives, per running total, when the usage that reached it was accepted, null past what was recorded', async () => {
    const accountId = await accountWithUsage([
      [5, secondsAgo(300)],
      [2, secondsAgo(200)],
      [3, secondsAgo(100)],
    ]);
    const reached = await inTransaction(database.db, async (tx) => usageReachedAtFrom((await tx.send(usageReachedAt(tx, accountId, [1, 5, 6, 10, 11])))[0]));
    expect(reached).toEqual([secondsAgo(300), secondsAgo(300), secondsAgo(200), secondsAgo(100), null]);
  });
});

describe('recentTestMessages', () => {
  it("lists the account's test messages since a time, oldest first, with their recipients, and no live one", async () => {
    const accountId = (await createAccount(database.db, 'Test mode')).account.id;
    const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, 'testmode.test');
    const sender = await insertSender(database.db, accountId, domain.id, 'hello@testmode.test');
    const queue = (createdAt: Date, to: string[], test = true) =>
      insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to, createdAt, test });
    await queue(secondsAgo(120), ['old@example.test']);
    await queue(secondsAgo(60), ['edge@example.test']);
    await queue(secondsAgo(30), ['a@example.test', 'b@example.test']);
    await queue(secondsAgo(20), ['live@example.test'], false);
    await queue(secondsAgo(10), ['c@example.test']);
    const recent = await inTransaction(database.db, async (tx) => recentTestMessagesFrom((await tx.send(recentTestMessages(tx, accountId, secondsAgo(60))))[0]));
    expect(recent).toEqual([
      { at: secondsAgo(30), recipients: 2 },
      { at: secondsAgo(10), recipients: 1 },
    ]);
  });
});
