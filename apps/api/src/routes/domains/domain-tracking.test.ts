import type { ProvisionedAccount } from '@mailer/db';
import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

/** A domain's opens and clicks settings, its tracking CNAME and its check (docs/api-decisions.md, "Opens and clicks"). */
let api: TestApi;
let dns: TestDnsServer;
let owner: ProvisionedAccount;

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms', PUBLIC_URL: 'https://mail.mailer.test' });
  owner = await api.createAccount();
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

function call(method: 'get' | 'post' | 'patch', path: string, body?: object) {
  const req = api.http[method](path).set('Authorization', `Bearer ${owner.management_key}`);
  return body === undefined ? req : req.send(body);
}

describe('PATCH /v1/domains/{id} tracking', () => {
  it('is off by default, lists the CNAME while opens or clicks are on, and checks it', async () => {
    const created = await call('post', '/v1/domains', { name: 'tracked.example.org' });
    const id = created.body.id as string;
    expect(created.body.tracking).toEqual({ status: 'not_checked', opens: false, clicks: false, subdomain: 'track', host: 'track.tracked.example.org' });
    const cname = async () => ((await call('get', `/v1/domains/${id}/dns`)).body.records as { purpose: string }[]).filter((r) => r.purpose === 'tracking_cname');
    expect(await cname()).toEqual([]);

    const on = await call('patch', `/v1/domains/${id}`, { tracking: { opens: true, subdomain: 'Links' } });
    expect(on.status).toBe(200);
    expect(on.body.tracking).toEqual({ status: 'not_checked', opens: true, clicks: false, subdomain: 'links', host: 'links.tracked.example.org' });
    expect(await cname()).toEqual([{ purpose: 'tracking_cname', type: 'CNAME', name: 'links.tracked.example.org', value: 'mail.mailer.test' }]);
    // Fields left out keep their value; the same again changes nothing, updated_at included.
    expect((await call('patch', `/v1/domains/${id}`, { tracking: { clicks: true } })).body.tracking).toMatchObject({ opens: true, clicks: true, subdomain: 'links' });
    const again = await call('patch', `/v1/domains/${id}`, { tracking: { opens: true } });
    expect((await call('patch', `/v1/domains/${id}`, { tracking: {} })).body.updated_at).toBe(again.body.updated_at);

    expect((await call('post', `/v1/domains/${id}/check-dns`)).body.tracking.status).toBe('missing');
    dns.set('links.tracked.example.org', [{ type: 'CNAME', target: 'elsewhere.example.net' }]);
    expect((await call('post', `/v1/domains/${id}/check-dns`)).body.tracking.status).toBe('mismatch');
    dns.set('links.tracked.example.org', [{ type: 'CNAME', target: 'mail.mailer.test' }]);
    expect((await call('post', `/v1/domains/${id}/check-dns`)).body.tracking.status).toBe('verified');
    // Another subdomain is another record: not checked again.
    expect((await call('patch', `/v1/domains/${id}`, { tracking: { subdomain: 't' } })).body.tracking.status).toBe('not_checked');
    const off = await call('patch', `/v1/domains/${id}`, { tracking: { opens: false, clicks: false } });
    expect(off.body.tracking).toMatchObject({ opens: false, clicks: false });
    expect(await cname()).toEqual([]);
  });

  it('refuses what is not a setting', async () => {
    const id = (await call('post', '/v1/domains', { name: 'refused.example.org' })).body.id as string;
    const bad = await call('patch', `/v1/domains/${id}`, { tracking: { opens: 'yes', subdomain: 'a.b', pixels: true } });
    expect(bad.status).toBe(422);
    expect((bad.body.error.details as { path: string }[]).map((d) => d.path).sort()).toEqual(['tracking.opens', 'tracking.pixels', 'tracking.subdomain']);
  });
});
