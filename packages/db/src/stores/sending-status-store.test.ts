import { reputationWindowStart } from '@mailer/domain';
import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { changeSendingStatus, findSendingStates, sendingStatesToEvaluate, type SendingStatusChange } from './sending-status-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const now = new Date('2030-01-02T12:30:00.000Z');
const HOUR = 3_600_000;
const windowStart = reputationWindowStart(now);
const newAccount = async () => (await createAccount(database.db, 'Reputation')).account.id;

/** The account's counts for the hour starting at `hour`, of the transactional stream unless told. */
const counts = (accountId: string, hour: Date, terminal: number, accepted: number, hardBounces: number, complaints: number, stream = 'transactional') => database.db`
  insert into account_reputation_hours (account_id, stream, hour, terminal, accepted, hard_bounces, complaints)
  values (${accountId}, ${stream}, ${hour}, ${terminal}, ${accepted}, ${hardBounces}, ${complaints})`;

const findSendingState = async (db: typeof database.db, accountId: string, at: Date, stream = 'transactional') =>
  (await findSendingStates(db, accountId, at)).find((s) => s.stream === stream);

describe('findSendingStates', () => {
  it("sums each stream's counts over the window's 24 hours, from its first hour on, with the plan's thresholds", async () => {
    const accountId = await newAccount();
    await counts(accountId, new Date(windowStart.getTime() - HOUR), 100, 0, 100, 0);
    await counts(accountId, windowStart, 10, 8, 2, 0);
    await counts(accountId, new Date(windowStart.getTime() + 23 * HOUR), 5, 5, 0, 1);
    const state = await findSendingState(database.db, accountId, now);
    expect(state).toMatchObject({ accountId, status: 'enabled', reason: null, window: { terminal: 15, accepted: 13, hardBounces: 2, complaints: 1 } });
    const [plan] = await database.db`
      select reputation_min_volume, review_bounce_rate, review_complaint_rate, pause_bounce_rate, pause_complaint_rate from plans where id = 'plan_free'`;
    expect(state!.thresholds).toEqual({
      minVolume: plan!.reputation_min_volume,
      reviewBounceRate: Number(plan!.review_bounce_rate),
      reviewComplaintRate: Number(plan!.review_complaint_rate),
      pauseBounceRate: Number(plan!.pause_bounce_rate),
      pauseComplaintRate: Number(plan!.pause_complaint_rate),
    });
    expect(await findSendingState(database.db, accountId, now, 'broadcast')).toMatchObject({ status: 'enabled', window: { terminal: 0 } });
    await counts(accountId, windowStart, 7, 7, 0, 3, 'broadcast');
    expect(await findSendingState(database.db, accountId, now, 'broadcast')).toMatchObject({ window: { terminal: 7, accepted: 7, complaints: 3 } });
    expect((await findSendingState(database.db, accountId, now))!.window.complaints).toBe(1);
    expect(await findSendingStates(database.db, 'acc_unknown', now)).toEqual([]);
  });
});

describe('sendingStatesToEvaluate', () => {
  it('deletes counts older than the window, and returns the accounts with counts in it and those under review', async () => {
    const [counted, old, reviewed, quiet] = [await newAccount(), await newAccount(), await newAccount(), await newAccount()];
    await counts(counted, windowStart, 1, 1, 0, 0);
    await counts(old, new Date(windowStart.getTime() - HOUR), 1, 1, 0, 0);
    await database.db`update account_streams set sending_status = 'under_review' where account_id = ${reviewed} and stream = 'broadcast'`;
    const states = await sendingStatesToEvaluate(database.db, now);
    const ids = states.map((s) => s.accountId);
    expect(ids).toEqual(expect.arrayContaining([counted, reviewed]));
    expect(states.filter((s) => s.accountId === counted || s.accountId === reviewed).map((s) => `${s.accountId === counted ? 'counted' : 'reviewed'} ${s.stream}`).sort()).toEqual([
      'counted transactional',
      'reviewed broadcast',
    ]);
    expect(ids).not.toContain(old);
    expect(ids).not.toContain(quiet);
    expect(await database.db`select hour from account_reputation_hours where account_id = ${old}`).toEqual([]);
  });
});

describe('changeSendingStatus', () => {
  const pause = (freshWindow: boolean): SendingStatusChange => ({
    decide: (state) => (state.status === 'paused' ? undefined : { status: 'paused', reason: 'bounce rate', freshWindow }),
    event: (before, after) => ({ from: before.status, to: after.status }),
  });

  it('writes a change with its webhook event, and nothing when the decision leaves the account as it is', async () => {
    const accountId = await newAccount();
    await insertWebhookEndpoint(database.db, { accountId, url: 'https://hooks.example.com/in', events: ['account.sending_status_changed'], description: null, secretSealed: 's', now });
    await counts(accountId, windowStart, 4, 2, 2, 0);
    const changed = await changeSendingStatus(database.db, accountId, 'transactional', now, pause(false));
    expect(changed).toMatchObject({ before: { status: 'enabled' }, after: { status: 'paused', reason: 'bounce rate', since: now, window: { terminal: 4, hardBounces: 2 } } });
    expect(await database.db`select stream, sending_status, sending_reason from account_streams where account_id = ${accountId} order by stream`).toEqual([
      { stream: 'broadcast', sending_status: 'enabled', sending_reason: null },
      { stream: 'transactional', sending_status: 'paused', sending_reason: 'bounce rate' },
    ]);
    expect(await database.db`select type, data from webhook_events where account_id = ${accountId}`).toEqual([
      { type: 'account.sending_status_changed', data: { from: 'enabled', to: 'paused' } },
    ]);
    expect(await changeSendingStatus(database.db, accountId, 'transactional', now, pause(false))).toBeUndefined();
    expect(await database.db`select id from webhook_events where account_id = ${accountId}`).toHaveLength(1);
    expect(await changeSendingStatus(database.db, 'acc_unknown', 'transactional', now, pause(false))).toBeUndefined();
  });

  it("deletes the account's counts when the change starts the window afresh", async () => {
    const [fresh, other] = [await newAccount(), await newAccount()];
    await counts(fresh, windowStart, 4, 2, 2, 0);
    await counts(fresh, windowStart, 4, 2, 2, 0, 'broadcast');
    await counts(other, windowStart, 4, 2, 2, 0);
    const changed = await changeSendingStatus(database.db, fresh, 'transactional', now, pause(true));
    expect(changed!.after.window).toEqual({ terminal: 0, accepted: 0, hardBounces: 0, complaints: 0 });
    expect(await database.db`select stream from account_reputation_hours where account_id = ${fresh}`).toEqual([{ stream: 'broadcast' }]);
    expect(await database.db`select 1 from account_reputation_hours where account_id = ${other}`).toHaveLength(1);
  });
});
