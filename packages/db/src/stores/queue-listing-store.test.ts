import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { listQueuedDeliveries, type QueueListQuery } from './queue-listing-store';

let database: DatabaseHandle;
let a: string;
let b: string;

const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));
const reply = (text: string) => ({ code: 451, enhanced_status: '4.7.1', text });

/**
 * Deliveries of two accounts in every state the listing tells apart, and the attempts of
 * their messages: em_q1's later attempt carried ann only, so bob's last reply is the first.
 */
beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
  const { db } = database;
  [a, b] = [(await createAccount(db, 'Queue A')).account.id, (await createAccount(db, 'Queue B')).account.id];
  const delivery = (id: string, emailId: string, accountId: string, recipient: string, kind: 'to' | 'cc' | 'bcc', status: string, heldAt: Date | null = null) => db`
    insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, held_at, attempt_count, next_attempt_at, created_at)
    values (${id}, ${emailId}, ${accountId}, ${recipient}, ${recipient.split('@')[1]!}, ${kind}, ${status}, ${heldAt}, ${status === 'queued' ? 0 : 1}, ${at(30)}, ${at(0)})`;
  await delivery('dlv_01', 'em_q1', a, 'ann@one.test', 'to', 'deferred');
  await delivery('dlv_02', 'em_q1', a, 'bob@two.test', 'cc', 'deferred');
  await delivery('dlv_03', 'em_q1', a, 'hidden@one.test', 'bcc', 'deferred');
  await delivery('dlv_04', 'em_q2', a, 'cat@one.test', 'to', 'queued', at(5));
  await delivery('dlv_05', 'em_q2', a, 'dan@one.test', 'to', 'deferred', at(6));
  await delivery('dlv_06', 'em_q3', a, 'eve@one.test', 'to', 'queued');
  await delivery('dlv_07', 'em_q3', a, 'fay@one.test', 'to', 'accepted');
  await delivery('dlv_08', 'em_q4', b, 'gus@one.test', 'to', 'deferred');
  const attempt = (emailId: string, number: number, recipients: string[], bcc: number, mxHost: string, text: string) => db`
    insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, mx_host, reply)
    values (${`att_${emailId}_${number}`}, ${emailId}, ${number}, ${at(number)}, ${at(number)}, 'deferred', ${db.json(recipients)}, ${bcc}, ${mxHost}, ${db.json(reply(text))})`;
  await attempt('em_q1', 1, ['ann@one.test', 'bob@two.test'], 1, 'mx1.test', 'first');
  await attempt('em_q1', 2, ['ann@one.test'], 0, 'mx2.test', 'second');
});
afterAll(() => database.close());

const ids = async (query: Partial<QueueListQuery>) => (await listQueuedDeliveries(database.db, { limit: 50, ...query })).map((d) => d.id);

describe('listQueuedDeliveries', () => {
  it('lists deferred deliveries and held waiting ones, in id order across accounts, never a queued one not held or a finished one', async () => {
    expect(await ids({})).toEqual(['dlv_01', 'dlv_02', 'dlv_03', 'dlv_04', 'dlv_05', 'dlv_08']);
    expect(await ids({ state: 'deferred' })).toEqual(['dlv_01', 'dlv_02', 'dlv_03', 'dlv_08']);
    expect(await ids({ state: 'held' })).toEqual(['dlv_04', 'dlv_05']);
  });

  it('narrows to an account and to recipient domains, and pages by keyset after the last id', async () => {
    expect(await ids({ accountId: b })).toEqual(['dlv_08']);
    expect(await ids({ accountId: a, recipientDomains: ['two.test'] })).toEqual(['dlv_02']);
    expect(await ids({ limit: 2 })).toEqual(['dlv_01', 'dlv_02']);
    expect(await ids({ limit: 2, afterId: 'dlv_02' })).toEqual(['dlv_03', 'dlv_04']);
    expect(await ids({ limit: 2, afterId: 'dlv_08' })).toEqual([]);
  });

  it("shows each delivery the latest attempt that carried it, a BCC one the latest that carried BCC recipients", async () => {
    const listed = new Map((await listQueuedDeliveries(database.db, { accountId: a, limit: 50 })).map((d) => [d.id, d]));
    expect(listed.get('dlv_01')).toMatchObject({ emailId: 'em_q1', accountId: a, recipient: 'ann@one.test', recipientDomain: 'one.test', kind: 'to', status: 'deferred', heldAt: null });
    expect(listed.get('dlv_01')!.lastAttempt).toEqual({ endedAt: at(2), mxHost: 'mx2.test', reply: reply('second') });
    expect(listed.get('dlv_02')!.lastAttempt).toEqual({ endedAt: at(1), mxHost: 'mx1.test', reply: reply('first') });
    expect(listed.get('dlv_03')!.lastAttempt).toEqual({ endedAt: at(1), mxHost: 'mx1.test', reply: reply('first') });
    expect(listed.get('dlv_04')).toMatchObject({ status: 'queued', heldAt: at(5), attemptCount: 0, lastAttempt: null });
  });
});
