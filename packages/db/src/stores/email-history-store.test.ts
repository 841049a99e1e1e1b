import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender, type QueuedEmailInput } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { listEmails, searchEmails } from './email-history-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

/** An account with a ready domain and sender, and a way to queue its messages (intake's rows, without HTTP). */
async function sendingAccount(domain: string) {
  const db = database.db;
  const accountId = (await createAccount(db, domain)).account.id;
  const ready = await insertReadyDomain(db, Buffer.alloc(32, 1), accountId, domain);
  const sender = await insertSender(db, accountId, ready.id, `hello@${domain}`);
  const send = async (input: Partial<QueuedEmailInput> & { to: string[] }) =>
    (await insertQueuedEmail(db, { accountId, senderId: sender.id, domainId: ready.id, from: sender.email, ...input })).id;
  return { accountId, send };
}

// Its plan over 40,000 messages (through emails_recipient_keys_idx) is checked by packages/db/src/query-plans.test.ts.
describe("searchEmails by recipient (the operator console's search)", () => {
  it('finds a message by a to or cc address in any case, never by a BCC address', async () => {
    const acme = await sendingAccount('search.test');
    const sent = await acme.send({ to: ['Dana@Example.test'], cc: ['erin@example.test'], bcc: ['only-bcc@example.test'] });
    await acme.send({ to: ['frank@example.test'], bcc: ['secret@example.test'] });
    const ids = async (recipientKey: string, accountId?: string) =>
      (await searchEmails(database.db, { recipientKey, ...(accountId ? { accountId } : {}) }, undefined, 10)).map((e) => e.id);
    expect(await ids('dana@example.test')).toEqual([sent]);
    expect(await ids('erin@example.test', acme.accountId)).toEqual([sent]);
    expect(await ids('only-bcc@example.test')).toEqual([]);
    expect(await ids('secret@example.test')).toEqual([]);
    const other = (await createAccount(database.db, 'Other')).account.id;
    expect(await ids('dana@example.test', other)).toEqual([]);
  });
});

describe('listEmails', () => {
  it("pages the owner's messages newest first by keyset, in either direction, and of its mode only", async () => {
    const acme = await sendingAccount('pages.test');
    const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));
    // Two messages share a created_at: the id orders them.
    const ids = [await acme.send({ to: ['a@example.test'], createdAt: at(1) }), await acme.send({ to: ['b@example.test'], createdAt: at(2) })];
    ids.push(await acme.send({ to: ['c@example.test'], createdAt: at(2) }), await acme.send({ to: ['d@example.test'], createdAt: at(3) }));
    await acme.send({ to: ['t@example.test'], createdAt: at(4), test: true });
    const newestFirst = [ids[3]!, ...[ids[1]!, ids[2]!].sort().reverse(), ids[0]!];
    const owner = { accountId: acme.accountId, test: false };

    const first = await listEmails(database.db, owner, {}, undefined, 2);
    expect(first.map((e) => e.id)).toEqual(newestFirst.slice(0, 2));
    const last = first.at(-1)!;
    const second = await listEmails(database.db, owner, {}, { createdAt: last.createdAt, id: last.id }, 2);
    expect(second.map((e) => e.id)).toEqual(newestFirst.slice(2));
    // The page before the second one's first row, read oldest first (the caller reverses it).
    const before = await listEmails(database.db, owner, {}, { createdAt: second[0]!.createdAt, id: second[0]!.id, newer: true }, 2);
    expect(before.map((e) => e.id)).toEqual(newestFirst.slice(0, 2).reverse());
    expect((await listEmails(database.db, { ...owner, test: true }, {}, undefined, 10)).map((e) => e.createdAt)).toEqual([at(4)]);
  });

  it('narrows by status, tag and exclusive bounds on created_at', async () => {
    const acme = await sendingAccount('filters.test');
    const at = (minute: number) => new Date(Date.UTC(2030, 0, 2, 12, minute));
    const spring = await acme.send({ to: ['a@example.test'], createdAt: at(1), tags: { campaign: 'spring' } });
    const autumn = await acme.send({ to: ['b@example.test'], createdAt: at(2), tags: { campaign: 'autumn' } });
    const bounced = await acme.send({ to: ['c@example.test'], createdAt: at(3) });
    await database.db`update emails set status = 'bounced' where id = ${bounced}`;
    const owner = { accountId: acme.accountId, test: false };
    const ids = async (filters: Parameters<typeof listEmails>[2]) => (await listEmails(database.db, owner, filters, undefined, 10)).map((e) => e.id);
    expect(await ids({ status: 'bounced' })).toEqual([bounced]);
    expect(await ids({ tag: { key: 'campaign', value: 'spring' } })).toEqual([spring]);
    expect(await ids({ createdAfter: at(1), createdBefore: at(3) })).toEqual([autumn]);
    expect(await ids({ createdAfter: at(3) })).toEqual([]);
  });
});
