import { cancelMessage, type MessageDeliveries } from '@mailer/domain';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { createAccount, openDatabase, type DatabaseHandle } from '../index';
import { changeDeliveries } from './change-deliveries';

let database: DatabaseHandle;
let sender: { id: string; email: string; domainId: string };
let accountId: string;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  accountId = (await createAccount(database.db, 'Changes')).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 7), accountId, 'changes.test');
  sender = { ...(await insertSender(database.db, accountId, domain.id, 'a@changes.test')), domainId: domain.id };
});
afterAll(() => database.close());

const queued = (to: string[]) => insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: sender.domainId, from: sender.email, to });
const statusesOf = async (emailId: string) =>
  (await database.db`select status from deliveries where email_id = ${emailId} order by id`).map((r) => r.status as string);
const messageStatus = async (emailId: string) => (await database.db`select status from emails where id = ${emailId}`)[0]!.status as string;

describe('the one way deliveries change', () => {
  it('gives the decision every locked message, writes what it decides with its effects, and answers the states after', async () => {
    const email = await queued(['a@example.com', 'b@example.com']);
    const other = await queued(['c@example.com']);
    const seen: MessageDeliveries[] = [];
    const now = new Date();
    const changed = await changeDeliveries(database.db, [email.id, other.id, 'eml_missing'], (messages) => {
      seen.push(...messages.values());
      return cancelMessage(messages.get(email.id)!, now);
    });
    expect(seen.map((m) => [m.emailId, m.deliveries.length]).sort()).toEqual([[email.id, 2], [other.id, 1]].sort());
    expect(changed.answer).toBe('canceled');
    expect(await statusesOf(email.id)).toEqual(['failed', 'failed']);
    expect(await messageStatus(email.id)).toBe('failed');
    expect(changed.messages.get(email.id)).toMatchObject({ status: 'failed', terminal: true });
    // A message locked and left alone is answered as it was.
    expect(changed.messages.get(other.id)).toMatchObject({ status: 'queued', terminal: false });
    expect(changed.messages.has('eml_missing')).toBe(false);
    const [canceled] = await database.db`select count(*)::int as n from events where email_id = ${email.id} and type = 'failed'`;
    expect(canceled!.n).toBe(2);
  });

  it('rolls back what the decision throws: nothing is written', async () => {
    const email = await queued(['a@example.com']);
    const written = new Date();
    await expect(
      changeDeliveries(
        database.db,
        [email.id],
        () => {
          throw new Error('the request is wrong');
        },
        { alsoWrite: (tx) => [tx.sql`update emails set scheduled_at = ${written} where id = ${email.id}`] },
      ),
    ).rejects.toThrow('the request is wrong');
    expect(await statusesOf(email.id)).toEqual(['queued']);
    const [row] = await database.db`select scheduled_at from emails where id = ${email.id}`;
    expect(row!.scheduled_at).toBeNull();
  });

  it('commits what the answer implies with the changes, in the same transaction', async () => {
    const email = await queued(['a@example.com']);
    const at = new Date('2030-01-01T00:00:00Z');
    const changed = await changeDeliveries(database.db, [email.id], (messages) => cancelMessage(messages.get(email.id)!, new Date()), {
      alsoWrite: (tx, answer) => (answer === 'canceled' ? [tx.sql`update emails set scheduled_at = ${at} where id = ${email.id}`] : []),
    });
    expect(changed.answer).toBe('canceled');
    const [row] = await database.db`select scheduled_at, status from emails where id = ${email.id}`;
    expect(row).toEqual({ scheduled_at: at, status: 'failed' });
  });

  it('serializes changes of one message: the later judges what the earlier committed', async () => {
    const email = await queued(['a@example.com', 'b@example.com']);
    const cancel = () => changeDeliveries(database.db, [email.id], (messages) => cancelMessage(messages.get(email.id)!, new Date()));
    const answers = (await Promise.all([cancel(), cancel(), cancel()])).map((c) => c.answer).sort();
    expect(answers).toEqual(['canceled', 'not_cancelable', 'not_cancelable']);
    const [events] = await database.db`select count(*)::int as n from events where email_id = ${email.id} and type = 'failed'`;
    expect(events!.n).toBe(2);
  });

  it('lets a read travel with the lock, its rows given to the decision', async () => {
    const email = await queued(['a@example.com']);
    const changed = await changeDeliveries(database.db, [email.id], (_, rows) => ({ answer: rows.map((r) => r.subject as string) }), {
      readAlongside: (tx) => tx.sql`select subject from emails where id = ${email.id}`,
    });
    expect(changed.answer).toEqual(['Test message']);
  });
});

describe('suppressions a change adds, by stream', () => {
  const hard = { code: 'recipient_unknown' as const, permanent: true, smtp_code: 550, enhanced_status: '5.1.1' };

  it("suppresses a complainer for the message's stream only, and a hard-bounced address for every stream", async () => {
    const email = await insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: sender.domainId, from: sender.email, to: ['fan@example.com', 'gone@example.com'], type: 'broadcast' });
    await database.db`update deliveries set status = 'accepted' where email_id = ${email.id}`;
    const [fan, gone] = (await database.db`select id, recipient from deliveries where email_id = ${email.id} order by position`).map((r) => r.id as string);
    const at = new Date();
    await changeDeliveries(database.db, [email.id], () => ({
      transitions: [{ reason: 'bounce_reported', delivery: gone!, to: 'bounced', cause: hard, at }],
      observations: [{ observation: 'complained', delivery: fan!, at }],
      answer: undefined,
    }));
    const rows = await database.db`select email_key, reason, stream from suppressions where account_id = ${accountId} and email_id = ${email.id} order by email_key`;
    expect(rows).toEqual([
      { email_key: 'fan@example.com', reason: 'complaint', stream: 'broadcast' },
      { email_key: 'gone@example.com', reason: 'hard_bounce', stream: null },
    ]);
  });
});
