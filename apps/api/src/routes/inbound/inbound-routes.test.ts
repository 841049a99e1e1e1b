import { createManagementKey, type ProvisionedAccount } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';

/** Receiving per domain and the routes of received mail, over HTTP (docs/api-decisions.md, "Inbound mail"). */
let api: TestApi;
let owner: ProvisionedAccount;
let domainId: string;

beforeAll(async () => {
  api = await startTestApi({ INBOUND_HOST: 'mx.inbound.mailer.test' });
  owner = await api.createAccount();
  domainId = (await call('post', '/v1/domains', { name: 'example.org' })).body.id;
});
afterAll(() => api.close());

function call(method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, key = owner.management_key) {
  const req = api.http[method](path).set('Authorization', `Bearer ${key}`);
  return body === undefined ? req : req.send(body);
}

describe('PATCH /v1/domains/{id}', () => {
  it('turns receiving on at the domain or a subdomain of it, listing its MX record, and off again', async () => {
    const receivingMx = async () => ((await call('get', `/v1/domains/${domainId}/dns`)).body.records as { purpose: string }[]).filter((r) => r.purpose === 'receiving_mx');
    expect(await receivingMx()).toEqual([]);
    const on = await call('patch', `/v1/domains/${domainId}`, { receiving: true, receiving_subdomain: 'IN.example.org' });
    expect(on.status).toBe(200);
    expect(on.body.receiving).toEqual({ status: 'not_checked', enabled: true, host: 'in.example.org' });
    expect(await receivingMx()).toEqual([{ purpose: 'receiving_mx', type: 'MX', name: 'in.example.org', value: '10 mx.inbound.mailer.test' }]);
    // The same again changes nothing, updated_at included.
    expect((await call('patch', `/v1/domains/${domainId}`, { receiving: true })).body.updated_at).toBe(on.body.updated_at);
    const problems = await call('patch', `/v1/domains/${domainId}`, { receiving_subdomain: 'in.example.com' });
    expect(problems.status).toBe(422);
    expect(problems.body.error.details).toEqual([{ path: 'receiving_subdomain', message: 'must be a subdomain of example.org' }]);
    expect((await call('patch', `/v1/domains/${domainId}`, { receiving: 'yes' })).status).toBe(422);
    expect((await call('patch', `/v1/domains/${domainId}`, { receiving: false, receiving_subdomain: null })).body.receiving).toEqual({ status: 'not_checked', enabled: false, host: 'example.org' });
    expect((await call('patch', '/v1/domains/dom_0000000000000000000000', { receiving: true })).body.error.code).toBe('domain_not_found');
  });
});

describe('/v1/inbound/routes', () => {
  it('creates, lists, changes and deletes a route on a domain of the account', async () => {
    const hook = (await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/inbound', events: ['email.received'] })).body;
    const created = await call('post', '/v1/inbound/routes', { pattern: ' Support@Example.ORG ', webhook_id: hook.id });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/inbound/routes/${created.body.id}`);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^rte_[0-9A-Za-z]{22}$/), pattern: 'support@example.org', domain_id: domainId, webhook_id: hook.id, enabled: true });
    const wildcard = (await call('post', '/v1/inbound/routes', { pattern: '*@example.org' })).body;
    expect((await call('get', '/v1/inbound/routes')).body.data.map((r: { id: string }) => r.id)).toEqual([wildcard.id, created.body.id]);
    expect((await call('get', `/v1/inbound/routes/${created.body.id}`)).body).toEqual(created.body);

    const changed = await call('patch', `/v1/inbound/routes/${created.body.id}`, { enabled: false, webhook_id: null });
    expect(changed.body).toMatchObject({ enabled: false, webhook_id: null });
    expect((await call('delete', `/v1/inbound/routes/${created.body.id}`)).status).toBe(204);
    expect((await call('get', `/v1/inbound/routes/${created.body.id}`)).body.error.code).toBe('inbound_route_not_found');
    expect((await call('delete', `/v1/inbound/routes/${created.body.id}`)).status).toBe(404);
    // Deleted, its pattern is free again.
    expect((await call('post', '/v1/inbound/routes', { pattern: 'support@example.org' })).status).toBe(201);
  });

  it('refuses a pattern of a domain not the account\'s, a malformed one, a taken one, and a foreign webhook', async () => {
    const other = await api.createAccount();
    const foreignHook = (await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/other' }, other.management_key)).body;
    const refused = async (body: object) => (await call('post', '/v1/inbound/routes', body)).body.error;
    expect(await refused({ pattern: 'sales@example.net' })).toMatchObject({ code: 'validation_error', details: [{ path: 'pattern', message: 'example.net is not a domain of this account or its receiving subdomain' }] });
    expect(await refused({ pattern: 'sales' })).toMatchObject({ code: 'validation_error', details: [{ path: 'pattern' }] });
    expect(await refused({ pattern: 'sales@example.org', webhook_id: foreignHook.id })).toMatchObject({ code: 'validation_error', details: [{ path: 'webhook_id' }] });
    expect(await refused({ pattern: 'sales@example.org', extra: 1 })).toMatchObject({ code: 'validation_error' });
    expect((await call('post', '/v1/inbound/routes', { pattern: 'sales@example.org' })).status).toBe(201);
    expect(await refused({ pattern: 'SALES@example.org' })).toMatchObject({ code: 'inbound_route_already_exists' });
    // Another account sees none of it.
    expect((await call('get', '/v1/inbound/routes', undefined, other.management_key)).body.data).toEqual([]);
  });

  it('needs the inbound scopes of a management key', async () => {
    const readOnly = (await createManagementKey(api.deps.db, owner.account.id, ['inbound:read'])).key;
    expect((await call('get', '/v1/inbound/routes', undefined, readOnly)).status).toBe(200);
    expect((await call('get', '/v1/inbound/emails', undefined, readOnly)).status).toBe(200);
    const denied = await call('post', '/v1/inbound/routes', { pattern: 'x@example.org' }, readOnly);
    expect(denied.body.error).toMatchObject({ code: 'insufficient_scope', details: [{ path: 'scope', message: 'requires inbound:write' }] });
    expect((await call('get', '/v1/inbound/emails', undefined, owner.sending_key)).body.error.code).toBe('wrong_key_type');
    expect((await call('get', '/v1/inbound/emails/inb_0000000000000000000000')).body.error.code).toBe('inbound_email_not_found');
    expect((await call('get', '/v1/inbound/emails/inb_0000000000000000000000/raw')).status).toBe(404);
  });
});
