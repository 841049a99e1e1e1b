import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { claimDomainsForRecheck, deleteDomain, findDomain, recordDnsCheck, returnPathDeliveryExists } from './domains-store';

let database: DatabaseHandle;
let accountId: string;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  accountId = (await createAccount(database.db, 'Domains')).account.id;
});
afterAll(() => database.close());

const now = new Date('2030-01-01T12:00:00.000Z');
const hoursAgo = (n: number) => new Date(now.getTime() - n * 3_600_000);
const KEY = Buffer.alloc(32, 1);

/** A ready domain created and last checked when given (null: never checked). */
async function readyDomain(name: string, createdAt: Date, lastCheckStartedAt: Date | null) {
  const domain = await insertReadyDomain(database.db, KEY, accountId, name);
  await database.db`update domains set created_at = ${createdAt}, last_check_started_at = ${lastCheckStartedAt} where id = ${domain.id}`;
  return domain.id;
}

describe('claimDomainsForRecheck', () => {
  it('claims ready domains last checked (or, never checked, created) before the cutoff, the oldest first, each once', async () => {
    const oldest = await readyDomain('oldest.test', hoursAgo(10), hoursAgo(5));
    const neverChecked = await readyDomain('never.test', hoursAgo(4), null);
    const older = await readyDomain('older.test', hoursAgo(10), hoursAgo(3));
    await readyDomain('at-cutoff.test', hoursAgo(10), hoursAgo(2));
    await readyDomain('recent.test', hoursAgo(10), hoursAgo(1));
    const notReady = await readyDomain('not-ready.test', hoursAgo(10), hoursAgo(9));
    await database.db`update domains set dkim_status = 'missing' where id = ${notReady}`;
    const deleted = await readyDomain('deleted.test', hoursAgo(10), hoursAgo(9));
    await database.db`update domains set deleted_at = ${hoursAgo(1)} where id = ${deleted}`;

    const claim = (limit: number) => claimDomainsForRecheck(database.db, { now, cutoff: hoursAgo(2), limit });
    // The two oldest are picked (the rows come back in no particular order).
    const first = await claim(2);
    expect(first.map((d) => d.id).sort()).toEqual([oldest, neverChecked].sort());
    expect(first.map((d) => d.lastCheckStartedAt)).toEqual([now, now]);
    expect((await claim(10)).map((d) => d.id)).toEqual([older]);
    expect(await claim(10)).toEqual([]);
  });

  it('gives each due domain to one of two concurrent claims', async () => {
    const [a, b] = [await readyDomain('held-a.test', hoursAgo(20), hoursAgo(20)), await readyDomain('held-b.test', hoursAgo(20), hoursAgo(19))];
    const [first, second] = await Promise.all([
      claimDomainsForRecheck(database.db, { now, cutoff: hoursAgo(2), limit: 1 }),
      claimDomainsForRecheck(database.db, { now, cutoff: hoursAgo(2), limit: 1 }),
    ]);
    expect([...first, ...second].map((d) => d.id).sort()).toEqual([a, b].sort());
  });
});

describe('recordDnsCheck', () => {
  it("stores a check's outcome, keeping the status of each component it left out, and nothing for a deleted domain", async () => {
    const id = await readyDomain('checked.test', hoursAgo(10), null);
    const check = { pendingDkim: [], startedAt: hoursAgo(1), completedAt: now };
    expect(await recordDnsCheck(database.db, accountId, id, { ...check, components: { dkim: 'missing' }, lastCheckStatus: 'temporary_failure' })).toBe(true);
    expect(await findDomain(database.db, accountId, id)).toMatchObject({
      ownershipStatus: 'verified',
      dkimStatus: 'missing',
      dmarcStatus: 'verified',
      lastCheckStatus: 'temporary_failure',
      lastCheckStartedAt: hoursAgo(1),
      lastCheckCompletedAt: now,
      updatedAt: now,
    });
    expect(await recordDnsCheck(database.db, 'acc_someoneelse', id, { ...check, components: { dkim: 'verified' }, lastCheckStatus: 'completed' })).toBe(false);
    await database.db`update domains set deleted_at = ${now} where id = ${id}`;
    expect(await recordDnsCheck(database.db, accountId, id, { ...check, components: { dkim: 'verified' }, lastCheckStatus: 'completed' })).toBe(false);
  });
});

describe('deleteDomain and returnPathDeliveryExists', () => {
  it('deletes a domain only once it has no active sender, and knows deliveries by the domain they were sent from while it is active', async () => {
    const domain = await insertReadyDomain(database.db, KEY, accountId, 'sending.test');
    const sender = await insertSender(database.db, accountId, domain.id, 'hello@sending.test');
    const email = await insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to: ['ann@example.test'] });
    const deliveryId = email.deliveries[0]!.id;
    expect(await returnPathDeliveryExists(database.db, deliveryId, 'sending.test')).toBe(true);
    expect(await returnPathDeliveryExists(database.db, deliveryId, 'other.test')).toBe(false);

    expect(await deleteDomain(database.db, accountId, domain.id, now)).toBe('has_active_senders');
    expect(await deleteDomain(database.db, 'acc_someoneelse', domain.id, now)).toBe('not_found');
    await database.db`update senders set deleted_at = ${now} where id = ${sender.id}`;
    expect(await deleteDomain(database.db, accountId, domain.id, now)).toBe('deleted');
    expect(await deleteDomain(database.db, accountId, domain.id, now)).toBe('not_found');
    expect(await returnPathDeliveryExists(database.db, deliveryId, 'sending.test')).toBe(false);
  });
});
