import { createAccount, openDatabase, type DatabaseHandle } from '@mailer/db';
import { utcDay } from '@mailer/domain';
import { createTestDatabase, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

let database: DatabaseHandle;
let dns: TestDnsServer;
let cli: TestCli;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  dns = await startTestDnsServer();
  cli = startTestCli(database.db, { dnsServers: [dns.address] });
  // 192.0.2.10 is mta1's forward-confirmed reverse DNS; 192.0.2.11's PTR names another host.
  dns.set('10.2.0.192.in-addr.arpa', [{ type: 'PTR', target: 'mta1.pools.test' }]);
  dns.set('mta1.pools.test', [{ type: 'A', address: '192.0.2.10' }]);
  dns.set('11.2.0.192.in-addr.arpa', [{ type: 'PTR', target: 'host11.isp.test' }]);
  dns.set('mta2.pools.test', [{ type: 'A', address: '192.0.2.11' }]);
});
afterAll(async () => {
  await cli.close();
  await dns.close();
  await database.close();
});

async function json(...argv: string[]) {
  const result = await cli.run(...argv, '--json');
  return { status: result.status, body: JSON.parse(result.status === 0 ? result.stdout : result.stderr) };
}

describe('pool commands', () => {
  it('creates a pool and adds an address whose PTR names its HELO name, warming up from today', async () => {
    expect(await json('pool', 'create', 'Dedicated')).toEqual({ status: 0, body: { name: 'dedicated' } });
    expect(await json('pool', 'create', 'dedicated')).toMatchObject({ status: 1, body: { error: { code: 'pool_already_exists' } } });
    expect(await json('pool', 'create', 'not a name')).toMatchObject({ status: 1, body: { error: { code: 'invalid_pool_name' } } });
    expect(await json('pool', 'add-address', 'dedicated', '192.0.2.10', '--helo', 'MTA1.pools.test')).toEqual({
      status: 0,
      body: { pool: 'dedicated', address: '192.0.2.10', helo_name: 'mta1.pools.test', warm_up_started_on: utcDay(new Date()) },
    });
  });

  it('refuses an address whose PTR does not name its HELO name, unless told to skip the check', async () => {
    const refused = await json('pool', 'add-address', 'dedicated', '192.0.2.11', '--helo', 'mta2.pools.test');
    expect(refused).toMatchObject({ status: 1, body: { error: { code: 'helo_ptr_mismatch' } } });
    expect(refused.body.error.message).toMatch(/PTR of 192\.0\.2\.11 does not name mta2\.pools\.test \(found: host11\.isp\.test\)/);
    expect(await json('pool', 'add-address', 'dedicated', '192.0.2.11', '--helo', 'mta2.pools.test', '--skip-ptr-check', '--no-warm-up')).toMatchObject({
      status: 0,
      body: { address: '192.0.2.11', warm_up_started_on: null },
    });
    // `check` looks again and exits 1 naming what is wrong.
    const checked = await cli.run('pool', 'check', '--json');
    expect(checked.status).toBe(1);
    expect(JSON.parse(checked.stdout.split('\n')[0]!).addresses).toEqual([
      { pool: 'dedicated', address: '192.0.2.10', helo_name: 'mta1.pools.test', problem: null },
      { pool: 'dedicated', address: '192.0.2.11', helo_name: 'mta2.pools.test', problem: expect.stringMatching(/does not name/) },
    ]);
  });

  it('refuses an address of another pool, a pool that does not exist and malformed values', async () => {
    await json('pool', 'create', 'other');
    expect(await json('pool', 'add-address', 'other', '192.0.2.10', '--helo', 'mta1.pools.test')).toMatchObject({ status: 1, body: { error: { code: 'address_in_use' } } });
    expect(await json('pool', 'add-address', 'missing', '192.0.2.10', '--helo', 'mta1.pools.test')).toMatchObject({ status: 1, body: { error: { code: 'pool_not_found' } } });
    expect(await json('pool', 'add-address', 'other', '192.0.2.0/24', '--helo', 'mta1.pools.test')).toMatchObject({ status: 1, body: { error: { code: 'invalid_address' } } });
    expect(await json('pool', 'add-address', 'other', '192.0.2.12', '--helo', 'localhost')).toMatchObject({ status: 1, body: { error: { code: 'invalid_helo_name' } } });
  });

  it('assigns an account a pool with addresses, and back to the default', async () => {
    const accountId = (await createAccount(database.db, 'Pooled')).account.id;
    expect(await json('account', 'set-pool', accountId, 'dedicated')).toEqual({ status: 0, body: { id: accountId, egress_pool: 'dedicated' } });
    expect(await json('account', 'set-pool', accountId, 'other')).toMatchObject({ status: 1, body: { error: { code: 'pool_empty' } } });
    expect(await json('account', 'set-pool', accountId, 'missing')).toMatchObject({ status: 1, body: { error: { code: 'pool_not_found' } } });
    expect(await json('account', 'set-pool', 'acc_missing', 'dedicated')).toMatchObject({ status: 1, body: { error: { code: 'account_not_found' } } });
    const listed = await json('pool', 'list');
    expect(listed.body.pools).toEqual([
      {
        name: 'dedicated',
        accounts: 1,
        addresses: [
          { address: '192.0.2.10', helo_name: 'mta1.pools.test', warm_up_started_on: utcDay(new Date()) },
          { address: '192.0.2.11', helo_name: 'mta2.pools.test', warm_up_started_on: null },
        ],
      },
      { name: 'other', accounts: 0, addresses: [] },
    ]);
    expect(await json('account', 'set-pool', accountId, 'default')).toEqual({ status: 0, body: { id: accountId, egress_pool: 'default' } });
    expect((await json('pool', 'list')).body.pools[0].accounts).toBe(0);
  });
});
