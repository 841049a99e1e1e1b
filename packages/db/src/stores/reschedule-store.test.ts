import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { rescheduleEmail } from './reschedule-store';

let database: DatabaseHandle;
let accountId: string;
let queue: (scheduledAt: Date | undefined, test?: boolean) => Promise<string>;

const now = new Date('2030-01-01T12:00:00.000Z');
const hours = (n: number) => new Date(now.getTime() + n * 3_600_000);

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
  accountId = (await createAccount(database.db, 'Reschedule')).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, 'reschedule.test');
  const sender = await insertSender(database.db, accountId, domain.id, 'hello@reschedule.test');
  queue = async (scheduledAt, test = false) =>
    (
      await insertQueuedEmail(database.db, {
        accountId,
        senderId: sender.id,
        domainId: domain.id,
        from: sender.email,
        to: ['ann@example.test', 'bob@example.test'],
        createdAt: now,
        scheduledAt,
        test,
      })
    ).id;
});
afterAll(() => database.close());

const live = () => ({ accountId, test: false });
const stateOf = async (emailId: string) => {
  const [email] = await database.db`select scheduled_at, status from emails where id = ${emailId}`;
  const deliveries = await database.db`select status, next_attempt_at, created_at from deliveries where email_id = ${emailId} order by position`;
  const events = await database.db`select type from events where email_id = ${emailId} order by at, type`;
  return { email, deliveries, events: events.map((e) => e.type) };
};

describe('rescheduleEmail', () => {
  it('makes every queued delivery due and first owed at the new time, and the message show it, with no event', async () => {
    const id = await queue(hours(1));
    expect(await rescheduleEmail(database.db, live(), id, now, () => hours(30))).toEqual({ kind: 'rescheduled', accountId, dueAt: hours(30) });
    expect(await stateOf(id)).toEqual({
      email: { scheduled_at: hours(30), status: 'queued' },
      deliveries: [
        { status: 'queued', next_attempt_at: hours(30), created_at: hours(30) },
        { status: 'queued', next_attempt_at: hours(30), created_at: hours(30) },
      ],
      events: ['queued'],
    });
  });

  it('makes a message due now for a time already past, keeping the time asked as its scheduled time', async () => {
    const id = await queue(undefined);
    const past = hours(-1);
    expect(await rescheduleEmail(database.db, live(), id, now, () => past)).toEqual({ kind: 'rescheduled', accountId, dueAt: now });
    const state = await stateOf(id);
    expect(state.email!.scheduled_at).toEqual(past);
    expect(state.deliveries.map((d) => d.next_attempt_at)).toEqual([now, now]);
  });

  it("answers not_found for another account's, the other mode's and an unknown message, without asking for the time", async () => {
    const id = await queue(hours(1));
    const testId = await queue(hours(1), true);
    const asked: string[] = [];
    const requestedAt = (label: string) => () => {
      asked.push(label);
      return hours(2);
    };
    expect(await rescheduleEmail(database.db, { accountId: 'acc_someoneelse', test: false }, id, now, requestedAt('other account'))).toEqual({ kind: 'not_found' });
    expect(await rescheduleEmail(database.db, live(), testId, now, requestedAt('other mode'))).toEqual({ kind: 'not_found' });
    expect(await rescheduleEmail(database.db, live(), 'em_unknown', now, requestedAt('unknown'))).toEqual({ kind: 'not_found' });
    expect(asked).toEqual([]);
    expect((await stateOf(id)).email!.scheduled_at).toEqual(hours(1));
  });

  it('answers not_reschedulable once a delivery has started, and writes nothing when the time cannot be read', async () => {
    const started = await queue(hours(1));
    await database.db`update deliveries set attempt_count = 1 where id = (select id from deliveries where email_id = ${started} order by position limit 1)`;
    expect(await rescheduleEmail(database.db, live(), started, now, () => hours(2))).toEqual({ kind: 'not_reschedulable' });
    expect((await stateOf(started)).deliveries.map((d) => d.next_attempt_at)).toEqual([hours(1), hours(1)]);

    const id = await queue(hours(1));
    const before = await stateOf(id);
    const refused = rescheduleEmail(database.db, live(), id, now, () => {
      throw new Error('not a date');
    });
    await expect(refused).rejects.toThrow('not a date');
    expect(await stateOf(id)).toEqual(before);
  });
});
