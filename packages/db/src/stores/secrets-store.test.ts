import { createTestDatabase, insertReadyDomain } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { newestSealedDkimKey, resealSecrets, type SealedSecret } from './secrets-store';

let database: DatabaseHandle;
let domains: string[];
let endpointId: string;

const KEY = Buffer.alloc(32, 1);

/**
 * Two domains (the second deleted, its key kept), one with an Ed25519 key, a pending key and a
 * superseded one (whose private key is gone), and an endpoint with a previous secret and HTTP
 * Basic credentials; the sealed columns hold plain markers, which resealSecrets hands over as they are.
 */
beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
  const { db } = database;
  const accountId = (await createAccount(db, 'Secrets')).account.id;
  domains = [(await insertReadyDomain(db, KEY, accountId, 'a.test')).id, (await insertReadyDomain(db, KEY, accountId, 'b.test')).id];
  await db`update domains set dkim_private_key_sealed = 'rsa-a', dkim_ed25519_selector = 'ed', dkim_ed25519_public_key = 'p', dkim_ed25519_private_key_sealed = 'ed-a', created_at = now() - interval '1 day' where id = ${domains[0]!}`;
  await db`update domains set dkim_private_key_sealed = 'rsa-b', deleted_at = now() where id = ${domains[1]!}`;
  await db`
    insert into dkim_keys (domain_id, selector, algorithm, public_key, private_key_sealed, created_at, activated_at, superseded_at)
    values (${domains[0]!}, 'next', 'rsa', 'p', 'pending-a', now(), null, null), (${domains[0]!}, 'old', 'ed25519', 'p', null, now(), now(), now())`;
  endpointId = 'wh_secrets';
  await db`
    insert into webhook_endpoints (id, account_id, url, events, secret_sealed, previous_secret_sealed, basic_auth_sealed)
    values (${endpointId}, ${accountId}, 'https://hooks.example.com/', array['email.accepted'], 'secret', 'previous', 'credentials')`;
});
afterAll(() => database.close());

const stored = async () => ({
  domains: await database.db`select dkim_private_key_sealed as rsa, dkim_ed25519_private_key_sealed as ed from domains where id = any(${domains}::text[]) order by name`,
  pending: await database.db`select selector, private_key_sealed from dkim_keys where domain_id = ${domains[0]!} order by selector`,
  endpoint: (await database.db`select secret_sealed, previous_secret_sealed, basic_auth_sealed from webhook_endpoints where id = ${endpointId}`)[0],
});

describe('newestSealedDkimKey', () => {
  it("is the newest active domain's key", async () => {
    expect(await newestSealedDkimKey(database.db)).toEqual({ id: domains[0], sealed: 'rsa-a', kind: 'dkim_private_key' });
  });
});

describe('resealSecrets', () => {
  it('writes nothing when the reseal throws', async () => {
    const before = await stored();
    await expect(
      resealSecrets(database.db, (secret) => {
        if (secret.kind === 'webhook_credentials') throw new Error('cannot open');
        return `new:${secret.sealed}`;
      }),
    ).rejects.toThrow('cannot open');
    expect(await stored()).toEqual(before);
  });

  it("hands over every stored secret, deleted domains' too, with what it is, and writes the new values it is given", async () => {
    const seen: SealedSecret[] = [];
    const counts = await resealSecrets(database.db, (secret) => {
      seen.push(secret);
      // One left as it is.
      return secret.sealed === 'previous' ? undefined : `new:${secret.sealed}`;
    });
    expect(seen.map((s) => `${s.kind} ${s.sealed}`).sort()).toEqual(
      ['dkim_private_key rsa-a', 'dkim_private_key ed-a', 'dkim_private_key rsa-b', 'dkim_private_key pending-a', 'webhook_secret secret', 'webhook_secret previous', 'webhook_credentials credentials'].sort(),
    );
    expect(counts).toEqual({ resealed: 6, unchanged: 1 });
    expect(await stored()).toEqual({
      domains: [
        { rsa: 'new:rsa-a', ed: 'new:ed-a' },
        { rsa: 'new:rsa-b', ed: null },
      ],
      pending: [
        { selector: 'next', private_key_sealed: 'new:pending-a' },
        { selector: 'old', private_key_sealed: null },
      ],
      endpoint: { secret_sealed: 'new:secret', previous_secret_sealed: 'previous', basic_auth_sealed: 'new:credentials' },
    });
  });
});
