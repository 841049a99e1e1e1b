import { createTestDatabase, insertReadyDomain } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import {
  findDomainsDueForRotation,
  insertPendingDkimKeys,
  listDkimKeys,
  recordPendingDkimStatuses,
  storeEd25519Key,
  switchToPendingDkimKeys,
  type NewDkimKey,
} from './dkim-keys-store';
import { findDomain } from './domains-store';

let database: DatabaseHandle;
let accountId: string;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
  accountId = (await createAccount(database.db, 'DKIM')).account.id;
});
afterAll(() => database.close());

const day = (n: number) => new Date(Date.UTC(2030, 0, 1 + n));

/** A ready domain whose keys sign since `activatedAt`. */
async function domainActiveSince(name: string, activatedAt: Date) {
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, name);
  await database.db`update domains set dkim_activated_at = ${activatedAt} where id = ${domain.id}`;
  return domain.id;
}

const keysOf = (tag: string): NewDkimKey[] => [
  { algorithm: 'rsa', selector: `rsa-${tag}`, publicKey: `rsa-public-${tag}`, privateKeySealed: `rsa-private-${tag}` },
  { algorithm: 'ed25519', selector: `ed-${tag}`, publicKey: `ed-public-${tag}`, privateKeySealed: `ed-private-${tag}` },
];

describe('findDomainsDueForRotation and insertPendingDkimKeys', () => {
  it('find active domains whose keys signed since before the cutoff, longest first, until a rotation of theirs is pending', async () => {
    // Older than every other domain of the file, which the look sees too.
    const [oldest, older, recent] = [await domainActiveSince('oldest.test', day(-100)), await domainActiveSince('older.test', day(-99)), await domainActiveSince('recent.test', day(9))];
    const deleted = await domainActiveSince('deleted.test', day(-100));
    await database.db`update domains set deleted_at = ${day(5)} where id = ${deleted}`;
    const mine = [oldest, older, recent, deleted];
    const due = async (limit = 10) => (await findDomainsDueForRotation(database.db, { cutoff: day(5), limit })).map((d) => d.id).filter((id) => mine.includes(id));
    expect(await due()).toEqual([oldest, older]);
    expect(await due(1)).toEqual([oldest]);

    expect(await insertPendingDkimKeys(database.db, oldest, keysOf('a'), day(6))).toBe(true);
    // A second rotation of the same domain (another daemon's) inserts nothing.
    expect(await insertPendingDkimKeys(database.db, oldest, keysOf('b'), day(6))).toBe(false);
    expect((await listDkimKeys(database.db, oldest)).map((k) => k.selector).sort()).toEqual(['ed-a', 'rsa-a']);
    expect(await due()).toEqual([older]);
    expect(await due()).not.toContain(recent);
  });
});

describe('switchToPendingDkimKeys', () => {
  it('signs with the pending keys and their record statuses, keeps the replaced keys without their private keys, and forgets retired ones', async () => {
    const id = await domainActiveSince('rotating.test', day(0));
    const before = (await findDomain(database.db, accountId, id))!;
    // A key replaced long ago, retired before the cutoff given below.
    await database.db`
      insert into dkim_keys (domain_id, selector, algorithm, public_key, private_key_sealed, created_at, activated_at, superseded_at)
      values (${id}, 'ancient', 'rsa', 'p', null, ${day(-30)}, ${day(-60)}, ${day(-30)})`;
    await insertPendingDkimKeys(database.db, id, keysOf('new'), day(10));
    await recordPendingDkimStatuses(database.db, id, [
      { selector: 'rsa-new', status: 'verified' },
      { selector: 'ed-new', status: 'missing' },
    ]);

    await switchToPendingDkimKeys(database.db, before, day(20), day(-10));

    expect(await findDomain(database.db, accountId, id)).toMatchObject({
      dkimSelector: 'rsa-new',
      dkimPublicKey: 'rsa-public-new',
      dkimPrivateKeySealed: 'rsa-private-new',
      dkimStatus: 'verified',
      dkimEd25519Selector: 'ed-new',
      dkimEd25519PublicKey: 'ed-public-new',
      dkimEd25519PrivateKeySealed: 'ed-private-new',
      dkimEd25519Status: 'missing',
      dkimActivatedAt: day(20),
    });
    expect(await listDkimKeys(database.db, id)).toEqual([
      {
        domainId: id,
        selector: before.dkimSelector,
        algorithm: 'rsa',
        publicKey: before.dkimPublicKey,
        privateKeySealed: null,
        recordStatus: 'not_checked',
        createdAt: day(20),
        activatedAt: day(0),
        supersededAt: day(20),
      },
    ]);
  });
});

describe('storeEd25519Key', () => {
  it('gives a domain without an Ed25519 key the first one stored, and keeps it', async () => {
    const id = await domainActiveSince('ed.test', day(0));
    const [first, second] = [keysOf('first')[1]!, keysOf('second')[1]!];
    expect(await storeEd25519Key(database.db, id, first)).toBe(true);
    expect(await storeEd25519Key(database.db, id, second)).toBe(false);
    expect(await findDomain(database.db, accountId, id)).toMatchObject({ dkimEd25519Selector: 'ed-first', dkimEd25519PrivateKeySealed: 'ed-private-first' });
  });
});
