import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import type { EmailOwner } from './email-history-store';
import {
  claimedKeysFrom,
  claimIdempotencyKeys,
  idempotencyRecordsFrom,
  otherRequestsRecords,
  releaseIdempotencyKeys,
  type IdempotencyClaim,
} from './idempotency-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
});
afterAll(() => database.close());

const TTL_MS = 60_000;
const now = new Date('2030-01-01T12:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const newOwner = async (): Promise<EmailOwner> => ({ accountId: (await createAccount(database.db, 'Idempotency')).account.id, test: false });
const claimOf = (key: string, emailId: string): IdempotencyClaim => ({ key, requestHash: `hash-${emailId}`, emailId, response: { id: emailId } });

/** Claims in a transaction of its own, committed: the keys it claimed. */
const claim = (owner: EmailOwner, claims: IdempotencyClaim[], at = now) =>
  inTransaction(database.db, async (tx) => claimedKeysFrom((await tx.send(claimIdempotencyKeys(tx, owner, claims, at, TTL_MS)))[0]));

const records = (owner: EmailOwner, keys: string[], ownEmailIds: string[], at = now) =>
  inTransaction(database.db, async (tx) => idempotencyRecordsFrom((await tx.send(otherRequestsRecords(tx, owner, keys, ownEmailIds, at)))[0]));

describe('claimIdempotencyKeys', () => {
  it('claims new keys, and leaves a live key to the request that holds it, whose record the next one reads', async () => {
    const owner = await newOwner();
    expect(await claim(owner, [claimOf('b', 'em_1'), claimOf('a', 'em_1')])).toEqual(new Set(['a', 'b']));
    expect(await claim(owner, [claimOf('a', 'em_2'), claimOf('c', 'em_2')], later(TTL_MS - 1))).toEqual(new Set(['c']));
    expect(await records(owner, ['a', 'c'], ['em_2'], later(TTL_MS - 1))).toEqual(new Map([['a', { requestHash: 'hash-em_1', response: { id: 'em_1' } }]]));
  });

  it('takes over an expired key, with the new request as its record until it expires in turn', async () => {
    const owner = await newOwner();
    await claim(owner, [claimOf('k', 'em_old')]);
    expect(await claim(owner, [claimOf('k', 'em_new')], later(TTL_MS))).toEqual(new Set(['k']));
    const [row] = await database.db`select email_id, request_hash, created_at, expires_at from idempotency_keys where account_id = ${owner.accountId} and key = 'k'`;
    expect(row).toEqual({ email_id: 'em_new', request_hash: 'hash-em_new', created_at: later(TTL_MS), expires_at: later(2 * TTL_MS) });
    // An expired record is nobody's.
    expect(await records(owner, ['k'], ['em_other'], later(2 * TTL_MS))).toEqual(new Map());
  });

  it("keeps an account's test and live keys, and each account's, apart", async () => {
    const live = await newOwner();
    const test = { ...live, test: true };
    const other = await newOwner();
    for (const owner of [live, test, other]) expect(await claim(owner, [claimOf('same', `em_${owner.accountId}_${owner.test}`)])).toEqual(new Set(['same']));
    expect(await records(test, ['same'], ['em_none'])).toEqual(new Map([['same', { requestHash: `hash-em_${live.accountId}_true`, response: { id: `em_${live.accountId}_true` } }]]));
  });

  it('waits for a transaction claiming the same key: the key is the first one’s if it commits, and free if it rolls back', async () => {
    for (const ending of ['commit', 'rollback'] as const) {
      const owner = await newOwner();
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const first = inTransaction(database.db, async (tx) => {
        await tx.send(claimIdempotencyKeys(tx, owner, [claimOf('k', 'em_first')], now, TTL_MS));
        held();
        await ended;
        if (ending === 'rollback') throw new Error('refused');
      }).catch((error: Error) => error.message);
      await holding;
      const second = claim(owner, [claimOf('k', 'em_second')]);
      // The second waits on the first's row until the first ends.
      await until(async () => (await database.db`
        select 1 from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock' and query like '%into idempotency_keys%'`).length > 0);
      end();
      expect(await first).toBe(ending === 'rollback' ? 'refused' : undefined);
      expect(await second).toEqual(ending === 'commit' ? new Set() : new Set(['k']));
    }
  });
});

describe('releaseIdempotencyKeys', () => {
  it("gives the owner's keys back for a later request, and no one else's", async () => {
    const owner = await newOwner();
    const other = await newOwner();
    await claim(owner, [claimOf('k', 'em_1')]);
    await claim(other, [claimOf('k', 'em_2')]);
    await inTransaction(database.db, (tx) => tx.commit(releaseIdempotencyKeys(tx, owner, ['k'])));
    expect(await claim(owner, [claimOf('k', 'em_3')])).toEqual(new Set(['k']));
    expect(await claim(other, [claimOf('k', 'em_4')])).toEqual(new Set());
  });
});

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}
