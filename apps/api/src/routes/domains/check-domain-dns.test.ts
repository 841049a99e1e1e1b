import { createSocket } from 'node:dgram';
import type { ProvisionedAccount } from '@mailer/db';
import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
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

const auth = () => ({ Authorization: `Bearer ${owner.management_key}` });
type Instruction = { purpose: 'ownership' | 'dkim' | 'dmarc'; name: string; value: string };

async function createDomain(name: string) {
  const created = await api.http.post('/v1/domains').set(auth()).send({ name });
  expect(created.status).toBe(201);
  const records = (await api.http.get(`/v1/domains/${created.body.id}/dns`).set(auth())).body.records as Instruction[];
  const record = (purpose: Instruction['purpose']) => records.find((r) => r.purpose === purpose)!;
  return { id: created.body.id as string, name: created.body.name as string, record };
}

/** Publishes the records as instructed, except where `override` says otherwise (null: publish nothing). */
function publish(domain: Awaited<ReturnType<typeof createDomain>>, override: Partial<Record<Instruction['purpose'], string | null>> = {}) {
  for (const purpose of ['ownership', 'dkim', 'dmarc'] as const) {
    const { name, value } = domain.record(purpose);
    const data = override[purpose] === undefined ? value : override[purpose];
    if (data === null) dns.remove(name);
    else dns.set(name, [{ type: 'TXT', data }]);
  }
}

const check = (id: string) => api.http.post(`/v1/domains/${id}/check-dns`).set(auth());
const statuses = (body: { ownership: { status: string }; dkim: { status: string }; dmarc: { status: string } }) => ({
  ownership: body.ownership.status,
  dkim: body.dkim.status,
  dmarc: body.dmarc.status,
});

describe('POST /v1/domains/:id/check-dns', () => {
  it('records a domain.status_changed webhook event with the representation when readiness changes, and only then', async () => {
    const hook = await api.http.post('/v1/webhooks').set(auth()).send({ url: 'https://hooks.example.com/domains', events: ['domain.status_changed'] });
    expect(hook.status).toBe(201);
    const domain = await createDomain('evented.example.test');
    const events = () => api.deps.db`
      select e.type, e.data from webhook_events e join webhook_deliveries d on d.event_id = e.id
       where d.endpoint_id = ${hook.body.id} order by e.occurred_at`;
    publish(domain, { dmarc: null });
    await check(domain.id);
    expect(await events()).toHaveLength(0);
    publish(domain);
    const ready = await check(domain.id);
    await check(domain.id);
    publish(domain, { dkim: null });
    const notReady = await check(domain.id);
    expect((await events()).map((e) => ({ ...e }))).toEqual([
      { type: 'domain.status_changed', data: ready.body },
      { type: 'domain.status_changed', data: notReady.body },
    ]);
    await api.http.delete(`/v1/webhooks/${hook.body.id}`).set(auth());
  });

  it('verifies correct records: every component verified and the domain ready', async () => {
    const domain = await createDomain('good.example.test');
    publish(domain);
    const res = await check(domain.id);
    expect(res.status).toBe(200);
    expect(statuses(res.body)).toEqual({ ownership: 'verified', dkim: 'verified', dmarc: 'verified' });
    expect(res.body.status).toBe('ready');
    expect(res.body.last_check).toEqual({ status: 'completed', started_at: expect.any(String), completed_at: expect.any(String) });
    expect(Date.parse(res.body.last_check.completed_at)).toBeGreaterThanOrEqual(Date.parse(res.body.last_check.started_at));
    expect(res.body.updated_at).toBe(res.body.last_check.completed_at);
    expect((await api.http.get(`/v1/domains/${domain.id}`).set(auth())).body).toEqual(res.body);
  });

  it('reports a wrong DKIM key as mismatch while the others verify', async () => {
    const domain = await createDomain('wrongkey.example.test');
    publish(domain, { dkim: 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong' });
    const res = await check(domain.id);
    expect(statuses(res.body)).toEqual({ ownership: 'verified', dkim: 'mismatch', dmarc: 'verified' });
    expect(res.body.status).toBe('not_ready');
    expect(res.body.last_check.status).toBe('completed');
  });

  it('reports NXDOMAIN as missing, an invalid DMARC record as mismatch', async () => {
    const domain = await createDomain('absent.example.test');
    const res = await check(domain.id);
    expect(statuses(res.body)).toEqual({ ownership: 'missing', dkim: 'missing', dmarc: 'missing' });
    expect(res.body.last_check.status).toBe('completed');
    publish(domain, { ownership: 'mailer-verify=someone-else', dmarc: 'v=DMARC1; p=whatever' });
    expect(statuses((await check(domain.id)).body)).toEqual({ ownership: 'mismatch', dkim: 'verified', dmarc: 'mismatch' });
  });

  it('keeps every component on SERVFAIL and records temporary_failure', async () => {
    const domain = await createDomain('flaky.example.test');
    publish(domain);
    expect((await check(domain.id)).body.status).toBe('ready');
    for (const purpose of ['ownership', 'dkim', 'dmarc'] as const) dns.fail(domain.record(purpose).name, 'servfail');
    const res = await check(domain.id);
    expect(res.status).toBe(200);
    expect(statuses(res.body)).toEqual({ ownership: 'verified', dkim: 'verified', dmarc: 'verified' });
    expect(res.body.status).toBe('ready');
    expect(res.body.last_check.status).toBe('temporary_failure');
  });

  it('updates the components that answered when only one lookup fails temporarily', async () => {
    const domain = await createDomain('partial.example.test');
    publish(domain, { ownership: null });
    dns.fail(domain.record('dkim').name, 'refused');
    const res = await check(domain.id);
    expect(statuses(res.body)).toEqual({ ownership: 'missing', dkim: 'not_checked', dmarc: 'verified' });
    expect(res.body.last_check.status).toBe('temporary_failure');
  });

  it('answers, changing nothing, when the server never answers', async () => {
    const domain = await createDomain('silent.example.test');
    for (const purpose of ['ownership', 'dkim', 'dmarc'] as const) dns.fail(domain.record(purpose).name, 'timeout');
    const res = await check(domain.id);
    expect(res.status).toBe(200);
    expect(statuses(res.body)).toEqual({ ownership: 'not_checked', dkim: 'not_checked', dmarc: 'not_checked' });
    expect(res.body.last_check.status).toBe('temporary_failure');
  });

  it('accepts DMARC published only at the organizational domain of a subdomain', async () => {
    const domain = await createDomain('mail.org.example.test');
    publish(domain, { dmarc: null });
    dns.set('_dmarc.example.test', [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.test' }]);
    const res = await check(domain.id);
    expect(statuses(res.body)).toEqual({ ownership: 'verified', dkim: 'verified', dmarc: 'verified' });
    dns.remove('_dmarc.example.test');
  });

  it('follows a CNAME at the DKIM name', async () => {
    const domain = await createDomain('cname.example.test');
    publish(domain, { dkim: null });
    dns.set(domain.record('dkim').name, [{ type: 'CNAME', target: 'keys.provider.test' }]);
    dns.set('keys.provider.test', [{ type: 'TXT', data: domain.record('dkim').value }]);
    expect(statuses((await check(domain.id)).body).dkim).toBe('verified');
  });

  it('checks an IDN domain at its A-label names', async () => {
    const domain = await createDomain('bücher.example');
    expect(domain.name).toBe('xn--bcher-kva.example');
    expect(domain.record('ownership').name).toBe('_mailer-verify.xn--bcher-kva.example');
    publish(domain);
    expect((await check(domain.id)).body.status).toBe('ready');
  });

  it('moves each component on its own as records are fixed', async () => {
    const domain = await createDomain('fixing.example.test');
    publish(domain, { dkim: null, dmarc: null });
    expect(statuses((await check(domain.id)).body)).toEqual({ ownership: 'verified', dkim: 'missing', dmarc: 'missing' });
    publish(domain, { dmarc: null });
    expect(statuses((await check(domain.id)).body)).toEqual({ ownership: 'verified', dkim: 'verified', dmarc: 'missing' });
    publish(domain, { ownership: 'mailer-verify=stale' });
    expect(statuses((await check(domain.id)).body)).toEqual({ ownership: 'mismatch', dkim: 'verified', dmarc: 'verified' });
  });

  it('rejects a body with unknown members after finding the domain', async () => {
    const domain = await createDomain('body.example.test');
    const res = await api.http.post(`/v1/domains/${domain.id}/check-dns`).set(auth()).send({ force: true });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: 'force', message: 'unknown member' }]);
  });
});

describe('check-dns against a resolver that never answers', () => {
  it('ends and changes no component', async () => {
    const blackHole = createSocket('udp4');
    await new Promise<void>((resolve) => blackHole.bind(0, '127.0.0.1', resolve));
    const silentApi = await startTestApi({ DNS_SERVERS: `127.0.0.1:${blackHole.address().port}`, DNS_TIMEOUT: '300ms' });
    try {
      const account = await silentApi.createAccount();
      const key = { Authorization: `Bearer ${account.management_key}` };
      const created = await silentApi.http.post('/v1/domains').set(key).send({ name: 'void.example.test' });
      const res = await silentApi.http.post(`/v1/domains/${created.body.id}/check-dns`).set(key);
      expect(res.status).toBe(200);
      expect(statuses(res.body)).toEqual({ ownership: 'not_checked', dkim: 'not_checked', dmarc: 'not_checked' });
      expect(res.body.last_check.status).toBe('temporary_failure');
    } finally {
      await silentApi.close();
      blackHole.close();
    }
  });
});
