import { createManagementKey, revokeKey, type ProvisionedAccount } from '@mailer/db';
import type { Scope } from '@mailer/domain';
import { insertReadyDomain } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
let domainId: string;
let senderId: string;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
  domainId = (await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'example.com')).id;
  const res = await api.http
    .post(`/v1/domains/${domainId}/senders`)
    .set('Authorization', `Bearer ${owner.management_key}`)
    .send({ email: 'hello@example.com' });
  senderId = res.body.id;
});
afterAll(() => api.close());

const keyWith = async (...scopes: Scope[]) => (await createManagementKey(api.deps.db, owner.account.id, scopes)).key;

type Call = { name: string; scope: Scope; send: (key: string | undefined, ids?: { domain?: string; sender?: string }) => Promise<import('supertest').Response> };

const withKey = <T extends { set(name: string, value: string): T }>(req: T, key: string | undefined) => (key ? req.set('Authorization', `Bearer ${key}`) : req);

// Every sender route; the body is deliberately invalid, so only the checks before it can answer.
const calls: Call[] = [
  { name: 'GET list', scope: 'senders:read', send: (key, ids) => withKey(api.http.get(`/v1/domains/${ids?.domain ?? domainId}/senders`), key) },
  {
    name: 'POST create',
    scope: 'senders:write',
    send: (key, ids) => withKey(api.http.post(`/v1/domains/${ids?.domain ?? domainId}/senders`), key).send({ bogus: true }),
  },
  { name: 'GET one', scope: 'senders:read', send: (key, ids) => withKey(api.http.get(`/v1/senders/${ids?.sender ?? senderId}`), key) },
  {
    name: 'PATCH',
    scope: 'senders:write',
    send: (key, ids) => withKey(api.http.patch(`/v1/senders/${ids?.sender ?? senderId}`), key).send({ bogus: true }),
  },
  { name: 'DELETE', scope: 'senders:write', send: (key, ids) => withKey(api.http.delete(`/v1/senders/${ids?.sender ?? senderId}`), key) },
];

const outcome = (name: string, res: import('supertest').Response) => ({ name, status: res.status, code: res.body.error?.code });

describe('sender routes: authentication, key type and scope', () => {
  it('answer 401 unauthorized without a key, with a malformed, unknown or revoked key', async () => {
    const revoked = await createManagementKey(api.deps.db, owner.account.id, ['senders:write']);
    await revokeKey(api.deps.db, revoked.id);
    for (const call of calls) {
      for (const key of [undefined, 'not-a-key', `mgmt_live_${'x'.repeat(40)}`, revoked.key]) {
        const res = await call.send(key);
        expect(outcome(call.name, res)).toEqual({ name: call.name, status: 401, code: 'unauthorized' });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    }
  });

  it('answer 403 wrong_key_type for the sending key, before looking up the resource', async () => {
    for (const call of calls) {
      for (const ids of [undefined, { domain: 'dom_missing', sender: 'snd_missing' }]) {
        expect(outcome(call.name, await call.send(owner.sending_key, ids))).toEqual({ name: call.name, status: 403, code: 'wrong_key_type' });
      }
    }
  });

  it('answer 403 insufficient_scope naming the scope, for keys with only domain scopes or only read', async () => {
    const domainsOnly = await keyWith('domains:read', 'domains:write');
    const readOnly = await keyWith('senders:read');
    for (const call of calls) {
      const keys = call.scope === 'senders:write' ? [domainsOnly, readOnly] : [domainsOnly];
      for (const key of keys) {
        const res = await call.send(key, { domain: 'dom_missing', sender: 'snd_missing' });
        expect(outcome(call.name, res)).toEqual({ name: call.name, status: 403, code: 'insufficient_scope' });
        expect(res.body.error.details).toEqual([{ path: 'scope', message: `requires ${call.scope}` }]);
      }
    }
  });

  it('let senders:read read, and senders:write read and write', async () => {
    const readOnly = await keyWith('senders:read');
    const writeOnly = await keyWith('senders:write');
    for (const key of [readOnly, writeOnly]) {
      expect((await calls[0]!.send(key)).status).toBe(200);
      expect((await calls[2]!.send(key)).status).toBe(200);
    }
    // Past the scope check, the invalid body is what answers.
    expect(outcome('POST', await calls[1]!.send(writeOnly))).toEqual({ name: 'POST', status: 422, code: 'validation_error' });
    expect(outcome('PATCH', await calls[3]!.send(writeOnly))).toEqual({ name: 'PATCH', status: 422, code: 'validation_error' });
    expect((await calls[4]!.send(writeOnly)).status).toBe(204);
  });
});
