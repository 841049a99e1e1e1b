import type { Response } from 'supertest';
import { createManagementKey, revokeKey, type ProvisionedAccount } from '@mailer/db';
import type { Scope } from '@mailer/domain';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
let domainId: string;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
  const res = await api.http.post('/v1/domains').set('Authorization', `Bearer ${owner.management_key}`).send({ name: 'auth.example.com' });
  domainId = res.body.id;
});
afterAll(() => api.close());

const keyWith = async (...scopes: Scope[]) => (await createManagementKey(api.deps.db, owner.account.id, scopes)).key;
const withKey = <T extends { set(name: string, value: string): T }>(req: T, key: string | undefined) => (key ? req.set('Authorization', `Bearer ${key}`) : req);

type Call = { name: string; scope: Scope; send: (key: string | undefined, id?: string) => Promise<Response> };

// Every domain route; bodies are deliberately invalid and ids unknown where noted, so only the earlier checks can answer.
const calls: Call[] = [
  { name: 'GET list', scope: 'domains:read', send: (key) => withKey(api.http.get('/v1/domains?limit=0'), key) },
  { name: 'POST create', scope: 'domains:write', send: (key) => withKey(api.http.post('/v1/domains'), key).send({ bogus: true }) },
  { name: 'GET one', scope: 'domains:read', send: (key, id) => withKey(api.http.get(`/v1/domains/${id ?? domainId}`), key) },
  { name: 'DELETE', scope: 'domains:write', send: (key, id) => withKey(api.http.delete(`/v1/domains/${id ?? domainId}`), key) },
  { name: 'GET dns', scope: 'domains:read', send: (key, id) => withKey(api.http.get(`/v1/domains/${id ?? domainId}/dns`), key) },
  {
    name: 'POST check-dns',
    scope: 'domains:write',
    send: (key, id) => withKey(api.http.post(`/v1/domains/${id ?? domainId}/check-dns`), key).send({ bogus: true }),
  },
  {
    name: 'POST dkim/rotate',
    scope: 'domains:write',
    send: (key, id) => withKey(api.http.post(`/v1/domains/${id ?? domainId}/dkim/rotate`), key).send({ bogus: true }),
  },
];

const outcome = (name: string, res: Response) => ({ name, status: res.status, code: res.body.error?.code });

describe('domain routes: authentication, key type and scope', () => {
  it('answer 401 unauthorized with WWW-Authenticate without a key, or with a malformed, unknown or revoked key', async () => {
    const revoked = await createManagementKey(api.deps.db, owner.account.id, ['domains:write']);
    await revokeKey(api.deps.db, revoked.id);
    for (const call of calls) {
      for (const key of [undefined, 'not-a-key', `mgmt_live_${'x'.repeat(40)}`, revoked.key]) {
        const res = await call.send(key, 'nope');
        expect(outcome(call.name, res)).toEqual({ name: call.name, status: 401, code: 'unauthorized' });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    }
  });

  it('answer 403 wrong_key_type to the sending key, before looking at the resource', async () => {
    for (const call of calls) {
      expect(outcome(call.name, await call.send(owner.sending_key, 'nope'))).toEqual({ name: call.name, status: 403, code: 'wrong_key_type' });
    }
  });

  it('answer 403 insufficient_scope naming the scope, before looking at the resource', async () => {
    const sendersOnly = await keyWith('senders:read', 'senders:write');
    const readOnly = await keyWith('domains:read');
    for (const call of calls) {
      for (const key of call.scope === 'domains:write' ? [sendersOnly, readOnly] : [sendersOnly]) {
        const res = await call.send(key, 'nope');
        expect(outcome(call.name, res)).toEqual({ name: call.name, status: 403, code: 'insufficient_scope' });
        expect(res.body.error.details).toEqual([{ path: 'scope', message: `requires ${call.scope}` }]);
      }
    }
  });

  it('let domains:write grant domains:read', async () => {
    const writer = await keyWith('domains:write');
    for (const path of ['/v1/domains', `/v1/domains/${domainId}`, `/v1/domains/${domainId}/dns`]) {
      expect((await api.http.get(path).set('Authorization', `Bearer ${writer}`)).status).toBe(200);
    }
  });

  it('check the resource once the key is right, and the body after the resource', async () => {
    const writer = await keyWith('domains:write');
    for (const call of calls) {
      const expected = call.name === 'GET list' ? 'invalid_query' : call.name === 'POST create' ? 'validation_error' : 'domain_not_found';
      expect(outcome(call.name, await call.send(writer, 'nope')).code).toBe(expected);
    }
    const check = calls.find((call) => call.name === 'POST check-dns')!;
    expect(outcome(check.name, await check.send(writer))).toEqual({ name: check.name, status: 422, code: 'validation_error' });
  });
});
