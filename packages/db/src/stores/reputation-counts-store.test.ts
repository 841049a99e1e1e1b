import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { lockWebhookEndpoints } from '../lock-order';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { addReputationCounts, type ReputationCount } from './reputation-counts-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const newAccount = async () => (await createAccount(database.db, 'Reputation')).account.id;
const at = (hour: number, minute: number) => new Date(Date.UTC(2030, 0, 1, hour, minute, 30));
const count = (accountId: string, when: Date, counts: Partial<ReputationCount['counts']>, stream: ReputationCount['stream'] = 'transactional'): ReputationCount => ({
  accountId,
  stream,
  at: when,
  counts: { terminal: 0, accepted: 0, hardBounces: 0, complaints: 0, ...counts },
});

const add = (counted: ReputationCount[]) => inTransaction(database.db, (tx) => tx.commit(...addReputationCounts(tx, counted)));

const hoursOf = async (accountId: string) =>
  (await database.db`select hour, terminal, accepted, hard_bounces, complaints from account_reputation_hours where account_id = ${accountId} order by hour`).map(
    (r) => ({ hour: r.hour as Date, terminal: r.terminal, accepted: r.accepted, hardBounces: r.hard_bounces, complaints: r.complaints }),
  );

describe('addReputationCounts', () => {
  it("sums the counts into one row per account and UTC hour, created at the hour's first count and added to after", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await add([
      count(a, at(10, 5), { terminal: 1, accepted: 1 }),
      count(a, at(10, 59), { terminal: 1, hardBounces: 1 }),
      count(a, at(11, 0), { terminal: 1, accepted: 1 }),
      count(b, at(10, 20), { complaints: 1 }),
    ]);
    await add([count(a, at(10, 30), { terminal: 2, accepted: 1, hardBounces: 1, complaints: 1 })]);
    const hour = (h: number) => new Date(Date.UTC(2030, 0, 1, h));
    expect(await hoursOf(a)).toEqual([
      { hour: hour(10), terminal: 4, accepted: 2, hardBounces: 2, complaints: 1 },
      { hour: hour(11), terminal: 1, accepted: 1, hardBounces: 0, complaints: 0 },
    ]);
    expect(await hoursOf(b)).toEqual([{ hour: hour(10), terminal: 0, accepted: 0, hardBounces: 0, complaints: 1 }]);
  });

  it('writes nothing for no counts, and refuses, before sending anything, to lock past its level of the lock order', async () => {
    const account = await newAccount();
    const statements = await inTransaction(database.db, async (tx) => addReputationCounts(tx, []));
    expect(statements).toEqual([]);
    await expect(
      inTransaction(database.db, async (tx) => {
        lockWebhookEndpoints(tx, ['wh_x']);
        await tx.commit(...addReputationCounts(tx, [count(account, at(10, 0), { terminal: 1 })]));
      }),
    ).rejects.toThrow('lock order violated: account_reputation_hours rows after webhook_endpoints rows');
    expect(await hoursOf(account)).toEqual([]);
  });
});
