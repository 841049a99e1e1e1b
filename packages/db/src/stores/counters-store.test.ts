import type { CounterDeltas } from '@mailer/domain';
import { createTestDatabase, insertReadyDomain, insertSender } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { lockAccountUsage, lockSenders } from '../lock-order';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { moveActiveCounts, moveSenderCounts } from './counters-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const deltas = (moved: Partial<CounterDeltas>): CounterDeltas => ({ active: 0, accepted: 0, bounced: 0, failed: 0, deferred: 0, ...moved });

let domains = 0;

/** An account with two senders. */
async function accountWithSenders() {
  const accountId = (await createAccount(database.db, 'Counters')).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, `counters${++domains}.test`);
  const senders = [await insertSender(database.db, accountId, domain.id, `one@${domain.name}`), await insertSender(database.db, accountId, domain.id, `two@${domain.name}`)];
  return { accountId, senders: senders.map((s) => s.id) };
}

const activeOf = async (accountId: string) => (await database.db`select active_deliveries from account_usage where account_id = ${accountId}`)[0]!.active_deliveries as number;
const sendersOf = async (ids: string[]) =>
  (await database.db`select accepted_count, bounced_count, failed_count, deferred_count from senders where id = any(${ids}::text[]) order by array_position(${ids}::text[], id)`).map(
    (r) => [r.accepted_count, r.bounced_count, r.failed_count, r.deferred_count],
  );

describe('moveActiveCounts and moveSenderCounts', () => {
  it("move each account's active deliveries and each sender's outcome counts by their deltas, in the transaction that holds their rows", async () => {
    const [x, y] = [await accountWithSenders(), await accountWithSenders()];
    const move = (byAccount: Map<string, CounterDeltas>, bySender: Map<string, CounterDeltas>) =>
      inTransaction(database.db, (tx) =>
        tx.commit(
          ...lockAccountUsage(tx, [...byAccount.keys()]),
          ...lockSenders(tx, [...bySender.keys()]),
          ...moveActiveCounts(tx, byAccount),
          ...moveSenderCounts(tx, bySender),
        ),
      );
    await move(
      new Map([[x.accountId, deltas({ active: 3 })], [y.accountId, deltas({ active: 1 })]]),
      new Map([[x.senders[0]!, deltas({ accepted: 2, deferred: 1 })], [x.senders[1]!, deltas({ bounced: 1, failed: 1 })]]),
    );
    await move(new Map([[x.accountId, deltas({ active: -2 })]]), new Map([[x.senders[0]!, deltas({ accepted: 1, deferred: -1 })]]));
    expect([await activeOf(x.accountId), await activeOf(y.accountId)]).toEqual([1, 1]);
    expect(await sendersOf([...x.senders, ...y.senders])).toEqual([
      [3, 0, 0, 0],
      [0, 1, 1, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });

  it('write no statement for counters that do not move', async () => {
    const { accountId, senders } = await accountWithSenders();
    const statements = await inTransaction(database.db, async (tx) => [
      ...moveActiveCounts(tx, new Map([[accountId, deltas({ accepted: 1 })]])),
      ...moveSenderCounts(tx, new Map([[senders[0]!, deltas({ active: 1 })]])),
      ...moveActiveCounts(tx, new Map()),
      ...moveSenderCounts(tx, new Map()),
    ]);
    expect(statements).toEqual([]);
  });
});
