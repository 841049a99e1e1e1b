import { startTestApi, type TestApi } from '../../testing';
import type { ProvisionedAccount } from '@mailer/db';

/** `format` and a postmark-format endpoint's Basic credentials over the API (docs/api-decisions.md, "Webhooks"). */
let api: TestApi;
let owner: ProvisionedAccount;
const call = (method: 'get' | 'post' | 'patch', path: string, body?: object) => {
  const req = api.http[method](path).set('Authorization', `Bearer ${owner.management_key}`);
  return body ? req.send(body) : req;
};

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
});
afterAll(() => api.close());

describe('webhook formats over the API', () => {
  it('stores the format, and shows a postmark endpoint URL with its password masked, sealed at rest', async () => {
    const created = await call('post', '/v1/webhooks', { url: 'https://pm-hook:s3cret@hooks.example.com/postmark', format: 'postmark' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ format: 'postmark', url: 'https://pm-hook:********@hooks.example.com/postmark' });
    const shown = await call('get', `/v1/webhooks/${created.body.id}`);
    expect(shown.body).toMatchObject({ format: 'postmark', url: 'https://pm-hook:********@hooks.example.com/postmark' });
    const listed = (await call('get', '/v1/webhooks')).body.data.find((w: { id: string }) => w.id === created.body.id);
    expect(listed.url).toBe('https://pm-hook:********@hooks.example.com/postmark');
    const [row] = await api.deps.db`select url, basic_auth_sealed from webhook_endpoints where id = ${created.body.id}`;
    expect(row!.url).toBe('https://hooks.example.com/postmark');
    expect(row!.basic_auth_sealed).not.toContain('s3cret');
    expect(JSON.stringify([created.body, shown.body, listed])).not.toContain('s3cret');

    // The URL as shown stands for the stored credentials: a PATCH of it changes nothing.
    const same = await call('patch', `/v1/webhooks/${created.body.id}`, { url: shown.body.url, description: null });
    expect(same.body.updated_at).toBe(created.body.updated_at);
    const changed = await call('patch', `/v1/webhooks/${created.body.id}`, { url: 'https://other:pw2@hooks.example.com/postmark' });
    expect(changed.body.url).toBe('https://other:********@hooks.example.com/postmark');
    const refused = await call('patch', `/v1/webhooks/${created.body.id}`, { format: 'resend' });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0].path).toBe('format');
    const cleared = await call('patch', `/v1/webhooks/${created.body.id}`, { format: 'resend', url: 'https://hooks.example.com/resend' });
    expect(cleared.body).toMatchObject({ format: 'resend', url: 'https://hooks.example.com/resend' });
    const [after] = await api.deps.db`select basic_auth_sealed from webhook_endpoints where id = ${created.body.id}`;
    expect(after!.basic_auth_sealed).toBeNull();
  });

  it('refuses credentials for other formats and an unknown format, listing the allowed set', async () => {
    for (const format of [undefined, 'resend', 'default']) {
      const res = await call('post', '/v1/webhooks', { url: 'https://u:p@hooks.example.com/x', ...(format ? { format } : {}) });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0]).toEqual({ path: 'url', message: expect.stringMatching(/^must not carry credentials/) });
    }
    const unknown = await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/x', format: 'sendgrid' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0]).toEqual({ path: 'format', message: 'must be one of default, resend, postmark' });
    expect((await call('post', '/v1/webhooks', { url: 'https://hooks.example.com/r', format: 'resend' })).body.format).toBe('resend');
  });
});
