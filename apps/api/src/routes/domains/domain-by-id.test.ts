import type { ProvisionedAccount } from '@mailer/db';
import { insertSender, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let dns: TestDnsServer;
let owner: ProvisionedAccount;

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms' });
  owner = await api.createAccount();
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

const auth = (key = owner.management_key) => ({ Authorization: `Bearer ${key}` });
const create = async (name: string, externalId?: string) => {
  const res = await api.http.post('/v1/domains').set(auth()).send({ name, ...(externalId ? { external_id: externalId } : {}) });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; created_at: string };
};

/** Every route that takes a domain id, with a body where the route takes one. */
const byIdRoutes = (id: string, key?: string) => [
  api.http.get(`/v1/domains/${id}`).set(auth(key)),
  api.http.delete(`/v1/domains/${id}`).set(auth(key)),
  api.http.get(`/v1/domains/${id}/dns`).set(auth(key)),
  api.http.post(`/v1/domains/${id}/check-dns`).set(auth(key)).send({}),
];

describe('GET /v1/domains/:id', () => {
  it('returns the domain as created', async () => {
    const domain = await create('get.example.com', 'get-me');
    const res = await api.http.get(`/v1/domains/${domain.id}`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(domain);
  });
});

describe('GET /v1/domains/:id/dns', () => {
  it('returns the exact ownership, DKIM, DMARC and return-path records without any DNS query', async () => {
    const domain = await create('records.example.com');
    const before = dns.queryCount();
    const res = await api.http.get(`/v1/domains/${domain.id}/dns`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      records: [
        { purpose: 'ownership', type: 'TXT', name: '_mailer-verify.records.example.com', value: expect.stringMatching(/^mailer-verify=[0-9A-Za-z]{32}$/) },
        {
          purpose: 'dkim',
          type: 'TXT',
          name: expect.stringMatching(/^[a-z0-9]+\._domainkey\.records\.example\.com$/),
          value: expect.stringMatching(/^v=DKIM1; k=rsa; p=MII[A-Za-z0-9+/=]+$/),
          state: 'active',
        },
        {
          purpose: 'dkim_ed25519',
          type: 'TXT',
          name: expect.stringMatching(/^[a-z0-9]+\._domainkey\.records\.example\.com$/),
          value: expect.stringMatching(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/),
          state: 'active',
        },
        { purpose: 'dmarc', type: 'TXT', name: '_dmarc.records.example.com', value: 'v=DMARC1; p=none;' },
        { purpose: 'return_path_mx', type: 'MX', name: 'bounces.records.example.com', value: '10 mailer.invalid' },
        { purpose: 'return_path_spf', type: 'TXT', name: 'bounces.records.example.com', value: 'v=spf1 a:mailer.invalid -all' },
      ],
      // SMTP_HELO_NAME unset outside production: the development placeholder, said so.
      warnings: [{ code: 'placeholder_host', message: expect.stringMatching(/mailer\.invalid, a development placeholder: .*SMTP_HELO_NAME/) }],
    });
    expect(dns.queryCount()).toBe(before);
    const again = await api.http.get(`/v1/domains/${domain.id}/dns`).set(auth());
    expect(again.body).toEqual(res.body);
  });

  it('warns of nothing once SMTP_HELO_NAME names the service', async () => {
    const named = await startTestApi({ SMTP_HELO_NAME: 'mail.example.net' });
    try {
      const account = await named.createAccount();
      const created = await named.http.post('/v1/domains').set(auth(account.management_key)).send({ name: 'named.example.com' });
      const res = await named.http.get(`/v1/domains/${created.body.id}/dns`).set(auth(account.management_key));
      expect(res.body.warnings).toEqual([]);
      expect(res.body.records.find((r: { purpose: string }) => r.purpose === 'return_path_mx').value).toBe('10 mail.example.net');
    } finally {
      await named.close();
    }
  });
});

describe('DELETE /v1/domains/:id', () => {
  it('refuses while active senders exist, then deletes: 204 and domain_not_found everywhere', async () => {
    const domain = await create('delete.example.com', 'deleting');
    const sender = await insertSender(api.deps.db, owner.account.id, domain.id, 'hi@delete.example.com');
    const refused = await api.http.delete(`/v1/domains/${domain.id}`).set(auth());
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('domain_has_active_senders');
    expect((await api.http.get(`/v1/domains/${domain.id}`).set(auth())).status).toBe(200);

    await api.deps.db`update senders set deleted_at = ${new Date()}, configured_state = 'disabled' where id = ${sender.id}`;
    const deleted = await api.http.delete(`/v1/domains/${domain.id}`).set(auth());
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    for (const res of await Promise.all(byIdRoutes(domain.id))) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('domain_not_found');
    }
    const listed = await api.http.get('/v1/domains').set(auth());
    expect(listed.body.data.map((d: { id: string }) => d.id)).not.toContain(domain.id);
    expect((await api.http.get('/v1/domains?external_id=deleting').set(auth())).body.data).toEqual([]);
  });

  it('frees the name and the external_id of the deleted domain', async () => {
    const first = await create('reuse.example.com', 'reuse');
    expect((await api.http.delete(`/v1/domains/${first.id}`).set(auth())).status).toBe(204);
    const again = await api.http.post('/v1/domains').set(auth()).send({ name: 'reuse.example.com', external_id: 'reuse' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.id);
    const otherName = await create('reuse2.example.com');
    expect((await api.http.delete(`/v1/domains/${otherName.id}`).set(auth())).status).toBe(204);
  });
});

describe('domain ids that are not the caller\'s active domain', () => {
  it('answer 404 domain_not_found on every /:id route: malformed, unknown, foreign', async () => {
    const other = await api.createAccount('Other');
    const foreign = await api.http.post('/v1/domains').set(auth(other.management_key)).send({ name: 'foreign.example.com' });
    const ids = ['nope', 'dom_short', `dom_${'A'.repeat(22)}`, `snd_${'A'.repeat(22)}`, foreign.body.id, '%E2%98%83'];
    for (const id of ids) {
      for (const res of await Promise.all(byIdRoutes(id))) {
        expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'domain_not_found' });
      }
    }
    // The foreign domain is untouched.
    expect((await api.http.get(`/v1/domains/${foreign.body.id}`).set(auth(other.management_key))).status).toBe(200);
  });

  it('answer domain_not_found before looking at the body', async () => {
    const res = await api.http
      .post(`/v1/domains/dom_${'B'.repeat(22)}/check-dns`)
      .set(auth())
      .set('Content-Type', 'text/plain')
      .send('not json');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('domain_not_found');
  });
});
