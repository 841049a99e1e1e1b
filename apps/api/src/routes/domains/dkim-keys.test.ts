import type { ProvisionedAccount } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, unseal } from '@mailer/domain';
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
afterEach(() => {
  api.clock.now = undefined;
});

const auth = () => ({ Authorization: `Bearer ${owner.management_key}` });
interface DnsRecord {
  purpose: string;
  type: string;
  name: string;
  value: string;
  state?: string;
  retiring_until?: string;
}

const records = async (id: string) => {
  const res = await api.http.get(`/v1/domains/${id}/dns`).set(auth());
  expect(res.status).toBe(200);
  return res.body.records as DnsRecord[];
};
const dkimRecords = async (id: string) => (await records(id)).filter((r) => r.purpose.startsWith('dkim'));
const check = (id: string) => api.http.post(`/v1/domains/${id}/check-dns`).set(auth()).send({});
const rotate = (id: string) => api.http.post(`/v1/domains/${id}/dkim/rotate`).set(auth()).send({});
const publishAll = (list: DnsRecord[], except: (r: DnsRecord) => boolean = () => false) => {
  for (const r of list) if (r.type === 'TXT' && !except(r)) dns.set(r.name, [{ type: 'TXT', data: r.value }]);
};

async function createDomain(name: string) {
  const created = await api.http.post('/v1/domains').set(auth()).send({ name });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** A ready domain whose both active DKIM records verified. */
async function readyDomain(name: string) {
  const id = await createDomain(name);
  publishAll(await records(id));
  const checked = await check(id);
  expect(checked.body).toMatchObject({ status: 'ready', dkim: { status: 'verified' }, dkim_ed25519: { status: 'verified' } });
  return id;
}

describe('Ed25519 keys', () => {
  it('gives a domain created before Ed25519 its key at the first read, once, sealed like the RSA key', async () => {
    const id = await createDomain('older.example.test');
    // As a domain of a database migrated by 0024 reads: no Ed25519 key.
    await api.deps.db`
      update domains set dkim_ed25519_selector = null, dkim_ed25519_public_key = null, dkim_ed25519_private_key_sealed = null where id = ${id}`;
    // Concurrent first reads agree on one key.
    const [a, b] = await Promise.all([dkimRecords(id), dkimRecords(id)]);
    expect(a).toEqual(b);
    expect(a.map((r) => r.purpose)).toEqual(['dkim', 'dkim_ed25519']);
    expect(await dkimRecords(id)).toEqual(a);
    const [row] = await api.deps.db`select dkim_ed25519_selector, dkim_ed25519_private_key_sealed from domains where id = ${id}`;
    expect(a[1]!.name).toBe(`${row!.dkim_ed25519_selector}._domainkey.older.example.test`);
    expect(row!.dkim_ed25519_private_key_sealed).not.toContain('PRIVATE KEY');
    expect(unseal(api.config.encryptionKey, DKIM_SEAL_PURPOSE, row!.dkim_ed25519_private_key_sealed)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('gives it the key at a check too, and judges its record there', async () => {
    const id = await createDomain('checked-older.example.test');
    await api.deps.db`
      update domains set dkim_ed25519_selector = null, dkim_ed25519_public_key = null, dkim_ed25519_private_key_sealed = null where id = ${id}`;
    const checked = await check(id);
    expect(checked.body.dkim_ed25519).toEqual({ status: 'missing' });
    const list = await dkimRecords(id);
    publishAll(list);
    expect((await check(id)).body.dkim_ed25519).toEqual({ status: 'verified' });
  });

  it('does not count towards readiness: a domain without its Ed25519 record is ready', async () => {
    const id = await createDomain('rsa-only.example.test');
    publishAll(await records(id), (r) => r.purpose === 'dkim_ed25519');
    expect((await check(id)).body).toMatchObject({ status: 'ready', dkim: { status: 'verified' }, dkim_ed25519: { status: 'missing' } });
    // A record without k=ed25519 is read as RSA: not ours.
    const ed = (await dkimRecords(id)).find((r) => r.purpose === 'dkim_ed25519')!;
    dns.set(ed.name, [{ type: 'TXT', data: ed.value.replace('k=ed25519; ', '') }]);
    expect((await check(id)).body).toMatchObject({ status: 'ready', dkim_ed25519: { status: 'mismatch' } });
  });
});

describe('POST /v1/domains/:id/dkim/rotate', () => {
  it('creates pending RSA and Ed25519 keys on new selectors, fires domain.dkim_rotation_pending, and starts nothing more while pending', async () => {
    const hook = await api.http.post('/v1/webhooks').set(auth()).send({ url: 'https://hooks.example.com/dkim', events: ['domain.dkim_rotation_pending'] });
    expect(hook.status).toBe(201);
    const id = await readyDomain('rotating.example.test');
    const active = await dkimRecords(id);
    const res = await rotate(id);
    expect(res.status).toBe(201);
    const pending = (res.body.records as DnsRecord[]).filter((r) => r.state === 'pending');
    expect(pending).toEqual([
      { purpose: 'dkim', type: 'TXT', name: expect.stringMatching(/\._domainkey\.rotating\.example\.test$/), value: expect.stringMatching(/^v=DKIM1; k=rsa; p=MII/), state: 'pending' },
      { purpose: 'dkim_ed25519', type: 'TXT', name: expect.stringMatching(/\._domainkey\.rotating\.example\.test$/), value: expect.stringMatching(/^v=DKIM1; k=ed25519; p=/), state: 'pending' },
    ]);
    expect(pending.map((r) => r.name)).not.toContain(active[0]!.name);
    expect(await dkimRecords(id)).toEqual([...active, ...pending]);

    const again = await rotate(id);
    expect(again.status).toBe(200);
    expect(again.body.records).toEqual(res.body.records);

    const events = await api.deps.db`
      select e.type, e.data from webhook_events e join webhook_deliveries d on d.event_id = e.id where d.endpoint_id = ${hook.body.id}`;
    expect(events).toEqual([{ type: 'domain.dkim_rotation_pending', data: { domain_id: id, name: 'rotating.example.test', records: pending } }]);
    // Nothing switched: the domain still signs with its keys.
    expect((await check(id)).body).toMatchObject({ status: 'ready', dkim: { status: 'verified' } });
    expect((await dkimRecords(id)).filter((r) => r.state === 'active')).toEqual(active);
  });

  it('switches signing once check-dns verifies the new records; the old ones are retiring for seven days, then retired', async () => {
    const id = await readyDomain('switching.example.test');
    const old = await dkimRecords(id);
    const pending = ((await rotate(id)).body.records as DnsRecord[]).filter((r) => r.state === 'pending');
    // The RSA record alone does not switch while the active Ed25519 record signs.
    publishAll(pending.filter((r) => r.purpose === 'dkim'));
    await check(id);
    expect((await dkimRecords(id)).filter((r) => r.state === 'pending')).toHaveLength(2);

    publishAll(pending);
    const switchedAt = new Date('2030-01-01T00:00:00.000Z');
    api.clock.now = switchedAt;
    const checked = await check(id);
    expect(checked.body).toMatchObject({ status: 'ready', dkim: { status: 'verified' }, dkim_ed25519: { status: 'verified' } });
    const retiringUntil = '2030-01-08T00:00:00.000Z';
    expect(await dkimRecords(id)).toEqual([
      ...pending.map((r) => ({ ...r, state: 'active' })),
      ...old.map((r) => ({ ...r, state: 'retiring', retiring_until: retiringUntil })),
    ]);
    const [row] = await api.deps.db`select dkim_activated_at from domains where id = ${id}`;
    expect(row!.dkim_activated_at).toEqual(switchedAt);
    // Replaced keys never sign again: their private keys are gone.
    expect(await api.deps.db`select selector from dkim_keys where domain_id = ${id} and private_key_sealed is not null`).toHaveLength(0);

    api.clock.now = new Date('2030-01-07T23:59:59.999Z');
    expect((await dkimRecords(id)).filter((r) => r.state === 'retiring')).toHaveLength(2);
    api.clock.now = new Date(retiringUntil);
    expect((await dkimRecords(id)).filter((r) => r.state === 'retired').map((r) => r.name).sort()).toEqual(old.map((r) => r.name).sort());
  });

  it('does not wait for the Ed25519 record when the active one never verified', async () => {
    const id = await createDomain('rsa-rotating.example.test');
    publishAll(await records(id), (r) => r.purpose === 'dkim_ed25519');
    await check(id);
    const pending = ((await rotate(id)).body.records as DnsRecord[]).filter((r) => r.state === 'pending');
    publishAll(pending.filter((r) => r.purpose === 'dkim'));
    expect((await check(id)).body).toMatchObject({ status: 'ready', dkim: { status: 'verified' }, dkim_ed25519: { status: 'missing' } });
    expect((await dkimRecords(id)).filter((r) => r.state === 'active').map((r) => r.name)).toEqual(pending.map((r) => r.name));
  });

  it("answers 404 domain_not_found for another account's domain", async () => {
    const id = await createDomain('foreign-rotate.example.test');
    const other = await api.createAccount('Other');
    const res = await api.http.post(`/v1/domains/${id}/dkim/rotate`).set('Authorization', `Bearer ${other.management_key}`).send({});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('domain_not_found');
  });
});
