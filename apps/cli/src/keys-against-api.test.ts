import { startTestApi, type TestApi } from '@mailer/api/testing';
import { startTestCli, type TestCli } from './testing/test-cli';

let api: TestApi;
let testCli: TestCli;
beforeAll(async () => {
  api = await startTestApi();
  testCli = startTestCli(api.deps.db);
});
afterAll(async () => {
  await testCli.close();
  await api.close();
});

/** The CLI in-process against the API's own database. */
async function cli(...argv: string[]) {
  const { status, stdout } = await testCli.run(...argv, '--json');
  expect(status).toBe(0);
  return JSON.parse(stdout);
}

/** A sender route: authenticated management keys with senders:read reach the domain lookup (404 for an unknown domain). */
const probe = (key: string) => api.http.get('/v1/domains/dom_x/senders').set('Authorization', `Bearer ${key}`);
const outcome = async (key: string) => {
  const res = await probe(key);
  return { status: res.status, code: res.body.error?.code };
};

describe('keys made by the CLI, used against the API', () => {
  it('authenticate: the management key reaches the resource lookup, the sending key is the wrong type', async () => {
    const created = await cli('account', 'create', '--name', 'CLI account');
    expect(await outcome(created.management_key)).toEqual({ status: 404, code: 'domain_not_found' });
    expect(await outcome(created.sending_key)).toEqual({ status: 403, code: 'wrong_key_type' });
  });

  it('carry exactly the scopes given, and stop working once revoked', async () => {
    const { account } = await cli('account', 'create', '--name', 'Scoped');
    const readers = await cli('key', 'create', '--account', account.id, '--scopes', 'senders:read');
    const domainsOnly = await cli('key', 'create', '--account', account.id, '--scopes', 'domains:read,domains:write');
    expect(await outcome(readers.key)).toEqual({ status: 404, code: 'domain_not_found' });
    expect(await outcome(domainsOnly.key)).toEqual({ status: 403, code: 'insufficient_scope' });

    expect(await cli('key', 'revoke', '--id', readers.id)).toEqual({ id: readers.id, revoked: true });
    expect(await outcome(readers.key)).toEqual({ status: 401, code: 'unauthorized' });
  });

  it('rotate-sending: the old sending key is refused at once, the new one authenticates', async () => {
    const created = await cli('account', 'create', '--name', 'Rotating');
    const { sending_key: fresh } = await cli('key', 'rotate-sending', '--account', created.account.id);
    expect(await outcome(created.sending_key)).toEqual({ status: 401, code: 'unauthorized' });
    expect(await outcome(fresh)).toEqual({ status: 403, code: 'wrong_key_type' });
    // Management keys are untouched by a sending-key rotation.
    expect(await outcome(created.management_key)).toEqual({ status: 404, code: 'domain_not_found' });
  });
});

describe('account disable and enable, against the API', () => {
  it('refuses every key of a disabled account with 401 until it is enabled, other accounts untouched', async () => {
    const created = await cli('account', 'create', '--name', 'Disabled');
    const other = await cli('account', 'create', '--name', 'Bystander');
    const sendingProbe = () => api.http.get('/v1/emails/em_x').set('Authorization', `Bearer ${created.sending_key}`);

    const disabled = await cli('account', 'disable', created.account.id);
    expect(disabled).toEqual({ id: created.account.id, status: 'disabled', disabled_at: expect.any(String), changed: true });
    expect(await outcome(created.management_key)).toEqual({ status: 401, code: 'unauthorized' });
    const refused = await sendingProbe();
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(await outcome(other.management_key)).toEqual({ status: 404, code: 'domain_not_found' });
    // A second disable keeps the first time.
    expect(await cli('account', 'disable', created.account.id)).toEqual({ ...disabled, changed: false });

    expect(await cli('account', 'enable', created.account.id)).toEqual({ id: created.account.id, status: 'enabled', disabled_at: null, changed: true });
    expect(await outcome(created.management_key)).toEqual({ status: 404, code: 'domain_not_found' });
    expect((await sendingProbe()).body.error.code).toBe('email_not_found');
  });

  it('refuses an unknown account', async () => {
    const { status, stderr } = await testCli.run('account', 'disable', 'acc_unknown', '--json');
    expect(status).toBe(1);
    expect(JSON.parse(stderr)).toEqual({ error: { code: 'account_not_found', message: 'No account with id acc_unknown.' } });
  });
});
