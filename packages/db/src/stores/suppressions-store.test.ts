import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { addSuppression, findSuppression, listSuppressions, removeSuppression, suppressedAmong, suppressedFrom, suppressRecipients } from './suppressions-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const newAccount = async () => (await createAccount(database.db, 'Suppressions')).account.id;
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));
const manual = (email: string, minute: number, stream: 'transactional' | 'broadcast' | null = null) => ({
  email,
  emailKey: email.toLowerCase(),
  reason: 'manual' as const,
  stream,
  at: at(minute),
});

describe('addSuppression and removeSuppression', () => {
  it('adds an address once: a second add says so and returns the entry first stored', async () => {
    const account = await newAccount();
    expect(await addSuppression(database.db, account, manual('Ann@Example.test', 1))).toEqual({
      created: true,
      suppression: { email: 'Ann@Example.test', reason: 'manual', stream: null, emailId: null, createdAt: at(1) },
    });
    expect(await addSuppression(database.db, account, { ...manual('ann@example.test', 2), reason: 'complaint' })).toEqual({
      created: false,
      suppression: { email: 'Ann@Example.test', reason: 'manual', stream: null, emailId: null, createdAt: at(1) },
    });
    // Another account's list is its own.
    expect((await addSuppression(database.db, await newAccount(), manual('ann@example.test', 3))).created).toBe(true);
  });

  it('removes by key, once, and only from the account named', async () => {
    const [account, other] = [await newAccount(), await newAccount()];
    await addSuppression(database.db, account, manual('bob@example.test', 1));
    await addSuppression(database.db, other, manual('bob@example.test', 1));
    expect(await removeSuppression(database.db, account, 'bob@example.test')).toBe(true);
    expect(await removeSuppression(database.db, account, 'bob@example.test')).toBe(false);
    expect(await findSuppression(database.db, account, 'bob@example.test')).toBeUndefined();
    expect(await findSuppression(database.db, other, 'bob@example.test')).toMatchObject({ email: 'bob@example.test' });
  });
});

describe('listSuppressions', () => {
  it('pages newest first by (created_at, key), and narrows to one key', async () => {
    const account = await newAccount();
    for (const [email, minute] of [['a@example.test', 1], ['c@example.test', 2], ['b@example.test', 2], ['d@example.test', 3]] as const) {
      await addSuppression(database.db, account, manual(email, minute));
    }
    const first = await listSuppressions(database.db, account, { limit: 2 });
    expect(first.map((s) => s.id)).toEqual(['d@example.test ', 'c@example.test ']);
    const last = first.at(-1)!;
    const rest = await listSuppressions(database.db, account, { limit: 10, position: { createdAt: last.createdAt, id: last.id } });
    expect(rest.map((s) => s.id)).toEqual(['b@example.test ', 'a@example.test ']);
    expect((await listSuppressions(database.db, account, { emailKey: 'b@example.test', limit: 10 })).map((s) => s.email)).toEqual(['b@example.test']);
    expect(await listSuppressions(database.db, await newAccount(), { limit: 10 })).toEqual([]);
  });
});

describe('suppressRecipients and suppressedAmong', () => {
  it('lists bounced and complained recipients by key with the message that made them, keeping an entry already there', async () => {
    const [account, other] = [await newAccount(), await newAccount()];
    await addSuppression(database.db, account, manual('kept@example.test', 1));
    await inTransaction(database.db, (tx) =>
      tx.commit(
        suppressRecipients(tx, [
          { reason: 'hard_bounce', stream: null, accountId: account, email: 'Gone@Example.test', emailId: 'em_bounce', at: at(5) },
          { reason: 'complaint', stream: null, accountId: account, email: 'kept@example.test', emailId: 'em_complaint', at: at(5) },
          { reason: 'complaint', stream: 'transactional', accountId: other, email: 'gone@example.test', emailId: 'em_other', at: at(6) },
        ]),
      ),
    );
    expect(await findSuppression(database.db, account, 'gone@example.test')).toEqual({ email: 'Gone@Example.test', reason: 'hard_bounce', stream: null, emailId: 'em_bounce', createdAt: at(5) });
    expect(await findSuppression(database.db, account, 'kept@example.test')).toEqual({ email: 'kept@example.test', reason: 'manual', stream: null, emailId: null, createdAt: at(1) });
    expect(await findSuppression(database.db, other, 'gone@example.test')).toMatchObject({ reason: 'complaint', emailId: 'em_other' });

    const suppressed = await inTransaction(database.db, async (tx) => {
      const [rows] = await tx.send(suppressedAmong(tx, account, ['gone@example.test', 'kept@example.test', 'free@example.test']));
      return suppressedFrom(rows);
    });
    for (const stream of ['transactional', 'broadcast'] as const) {
      expect(['gone@example.test', 'kept@example.test', 'free@example.test'].filter((key) => suppressed(key, stream))).toEqual(['gone@example.test', 'kept@example.test']);
    }
  });
});

describe('suppressions per stream', () => {
  it("keeps one entry per stream, every stream's apart, and judges a message of a stream by its own and every stream's", async () => {
    const account = await newAccount();
    expect((await addSuppression(database.db, account, manual('ann@example.test', 1, 'broadcast'))).created).toBe(true);
    expect((await addSuppression(database.db, account, manual('ann@example.test', 2, 'broadcast'))).suppression).toMatchObject({ stream: 'broadcast', createdAt: at(1) });
    expect((await addSuppression(database.db, account, manual('ann@example.test', 3, 'transactional'))).created).toBe(true);
    expect((await addSuppression(database.db, account, manual('ann@example.test', 4))).created).toBe(true);
    expect((await addSuppression(database.db, account, manual('ann@example.test', 5))).created).toBe(false);
    expect(await listSuppressions(database.db, account, { limit: 10 })).toHaveLength(3);
    // The most general entry first, or the one that holds for the stream asked.
    expect(await findSuppression(database.db, account, 'ann@example.test')).toMatchObject({ stream: null });
    expect(await removeSuppression(database.db, account, 'ann@example.test', 'broadcast')).toBe(true);
    // Mail of the broadcast stream reaches the address again; the transactional entry stays.
    expect(await findSuppression(database.db, account, 'ann@example.test', 'broadcast')).toBeUndefined();
    expect(await findSuppression(database.db, account, 'ann@example.test')).toMatchObject({ stream: 'transactional' });

    await addSuppression(database.db, account, manual('bob@example.test', 1, 'broadcast'));
    const suppressed = await inTransaction(database.db, async (tx) => suppressedFrom((await tx.send(suppressedAmong(tx, account, ['bob@example.test'])))[0]));
    expect(suppressed('bob@example.test', 'broadcast')).toBe(true);
    expect(suppressed('bob@example.test', 'transactional')).toBe(false);
    expect((await listSuppressions(database.db, account, { stream: 'transactional', limit: 10 })).map((s) => s.email)).toEqual(['ann@example.test']);
  });
});
