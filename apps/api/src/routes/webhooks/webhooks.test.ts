import { createManagementKey, type ProvisionedAccount } from '@mailer/db';
import { WEBHOOK_EVENT_TYPES } from '@mailer/domain';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, key = owner.management_key) => {
  const req = api.http[method](path).set('Authorization', `Bearer ${key}`);
  return body ? req.send(body) : req;
};

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
});
afterAll(() => api.close());

describe('webhook endpoints over the API', () => {
  it('creates an endpoint for every event type by default, with a secret shown once', async () => {
    const res = await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/mailer', description: 'Ops' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{22}$/),
      url: 'https://hooks.example.com/mailer',
      events: [...WEBHOOK_EVENT_TYPES],
      format: 'default',
      description: 'Ops',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    expect(res.headers.location).toBe(`/v1/webhooks/${res.body.id}`);
    const shown = await call('get', `/v1/webhooks/${res.body.id}`);
    expect(shown.body).toEqual({ ...res.body, secret: undefined });
    expect(shown.body).not.toHaveProperty('secret');
    expect((await call('get', '/v1/webhooks')).body.data.map((w: { id: string }) => w.id)).toContain(res.body.id);
  });

  it('refuses URLs that are not public https, and unknown event types, listing the allowed set', async () => {
    for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://10.0.0.8/x', 'https://localhost/x', 'nope']) {
      const res = await call('post', '/v1/webhooks', { url });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe('url');
    }
    const res = await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['email.accepted', 'email.viewed'] });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toEqual({ path: 'events[1]', message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  });

  it('refuses a NUL in url or description with 422 at its path, on creation and on change', async () => {
    const nul = [
      [{ url: 'https://hooks.example.com/a\u0000b' }, 'url'],
      [{ url: 'https://hooks.example.com/a', description: 'Ops\u0000' }, 'description'],
    ] as const;
    const created = (await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/nul' })).body;
    for (const [body, path] of nul) {
      for (const res of [await call('post', '/v1/webhooks', body), await call('patch', `/v1/webhooks/${created.id}`, body)]) {
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'validation_error', details: [{ path, message: 'must not contain NUL (U+0000)' }] });
      }
    }
  });

  it('changes what a PATCH asks, keeps updated_at on a no-op, rotates the secret and deletes', async () => {
    const created = (await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/a', events: ['email.bounced'] })).body;
    const same = await call('patch', `/v1/webhooks/${created.id}`, { url: 'https://hooks.example.com/a', events: ['email.bounced'] });
    expect(same.body.updated_at).toBe(created.updated_at);
    api.clock.now = new Date(Date.now() + 1000);
    const changed = await call('patch', `/v1/webhooks/${created.id}`, { status: 'disabled', events: ['email.failed', 'email.bounced'] });
    api.clock.now = undefined;
    expect(changed.body).toMatchObject({ status: 'disabled', events: ['email.failed', 'email.bounced'] });
    expect(changed.body.updated_at > created.updated_at).toBe(true);
    expect((await call('patch', `/v1/webhooks/${created.id}`, { url: 'http://x.example.com' })).status).toBe(422);
    const rotated = await call('post', `/v1/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(created.secret);
    expect((await call('get', `/v1/webhooks/${created.id}/deliveries`)).body).toEqual({ data: [], next_cursor: null });
    expect((await call('delete', `/v1/webhooks/${created.id}`)).status).toBe(204);
    for (const res of [await call('get', `/v1/webhooks/${created.id}`), await call('delete', `/v1/webhooks/${created.id}`), await call('get', '/v1/webhooks/wh_bogus')]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('webhook_not_found');
    }
  });

  it('hides other accounts\' endpoints and needs the webhooks scopes', async () => {
    const mine = (await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/mine' })).body;
    const other = await api.createAccount();
    expect((await call('get', `/v1/webhooks/${mine.id}`, undefined, other.management_key)).status).toBe(404);
    const readOnly = (await createManagementKey(api.deps.db, owner.account.id, ['webhooks:read'])).key;
    expect((await call('get', '/v1/webhooks', undefined, readOnly)).status).toBe(200);
    const denied = await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/x' }, readOnly);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    expect((await call('get', '/v1/webhooks', undefined, owner.sending_key)).body.error.code).toBe('wrong_key_type');
  });
});
