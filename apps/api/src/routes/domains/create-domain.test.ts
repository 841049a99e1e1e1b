import type { ProvisionedAccount } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, unseal } from '@mailer/domain';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
});
afterAll(() => api.close());

const create = (body: unknown, key = owner.management_key) =>
  api.http.post('/v1/domains').set('Authorization', `Bearer ${key}`).send(body as object);

describe('POST /v1/domains', () => {
  it('creates the domain: 201 with the full representation and a Location', async () => {
    const res = await create({ name: 'Create.Example.com.', external_id: 'cust-1' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/domains/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^dom_[0-9A-Za-z]{22}$/),
      name: 'create.example.com',
      external_id: 'cust-1',
      status: 'not_ready',
      ownership: { status: 'not_checked' },
      dkim: { status: 'not_checked' },
      dkim_ed25519: { status: 'not_checked' },
      dmarc: { status: 'not_checked' },
      receiving: { status: 'not_checked', enabled: false, host: 'create.example.com' },
      tracking: { status: 'not_checked', opens: false, clicks: false, subdomain: 'track', host: 'track.create.example.com' },
      return_path: { status: 'not_checked' },
      sender_count: 0,
      delivery_counts: { accepted: 0, bounced: 0, failed: 0, deferred: 0 },
      last_check: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect(Object.keys(res.body)).toEqual([
      'id', 'name', 'external_id', 'status', 'ownership', 'dkim', 'dkim_ed25519', 'dmarc', 'return_path', 'receiving', 'tracking', 'sender_count', 'delivery_counts', 'last_check', 'created_at', 'updated_at',
    ]);
  });

  it('generates a DKIM key pair whose private key is stored sealed, and an ownership token', async () => {
    const res = await create({ name: 'keys.example.com' });
    expect(res.status).toBe(201);
    expect(res.body.external_id).toBeNull();
    const [row] = await api.deps.db`
      select dkim_private_key_sealed as "dkimPrivateKeySealed", ownership_token as "ownershipToken", dkim_selector as "dkimSelector"
      from domains where id = ${res.body.id}`;
    expect(row!.dkimPrivateKeySealed).not.toContain('PRIVATE KEY');
    expect(unseal(api.config.encryptionKey, DKIM_SEAL_PURPOSE, row!.dkimPrivateKeySealed)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(row!.ownershipToken).toMatch(/^mailer-verify=[0-9A-Za-z]{32}$/);
    expect(row!.dkimSelector).toMatch(/^[a-z0-9]+$/);
  });

  it('stores IDN names as A-labels', async () => {
    const res = await create({ name: 'bücher.example' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('xn--bcher-kva.example');
  });

  it.each([
    ['an IP literal', '192.0.2.10', /IP address/],
    ['an IPv6 literal', '[2001:db8::1]', /IP address/],
    ['a public suffix', 'co.uk', /public suffix/],
    ['a single label', 'localhost', /two labels/],
    ['bad characters', 'bad_name.example.com', /letters, digits and hyphens/],
    ['an over-long label', `${'a'.repeat(64)}.example.com`, /63/],
    ['an empty name', '  ', /empty/],
  ])('refuses %s with 422 validation_error naming the field', async (_what, name, message) => {
    const res = await create({ name });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([{ path: 'name', message: expect.stringMatching(message) }]);
  });

  it('lists every problem of the body', async () => {
    const res = await create({ name: 42, external_id: '\u0007', extra: true });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'must be a string' },
        { path: 'external_id', message: expect.stringMatching(/control/) },
        { path: 'extra', message: 'unknown member' },
      ]),
    );
    const missing = await create({});
    expect(missing.body.error.details).toEqual([{ path: 'name', message: 'is required' }]);
  });

  it('refuses external_id values that are empty, too long or hold control characters', async () => {
    for (const externalId of ['   ', 'x'.repeat(256), 'a\u0000b', 'line\nbreak']) {
      const res = await create({ name: 'ext.example.com', external_id: externalId });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe('external_id');
    }
  });

  it('normalizes external_id (trim, NFC), so a retry spelled differently is the same domain', async () => {
    const first = await create({ name: 'nfc.example.com', external_id: '  Cafe\u0301 ' });
    expect(first.status).toBe(201);
    expect(first.body.external_id).toBe('Caf\u00e9');
    const again = await create({ name: 'NFC.example.com', external_id: 'Caf\u00e9' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('answers a natural retry (same name, same external_id) with 200 and the existing domain', async () => {
    const first = await create({ name: 'retry.example.com', external_id: 'retry' });
    const again = await create({ name: 'retry.example.com', external_id: 'retry' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
  });

  it('refuses a taken name without the same external_id: 409 domain_already_exists', async () => {
    await create({ name: 'taken.example.com', external_id: 'taken' });
    for (const body of [{ name: 'taken.example.com' }, { name: 'taken.example.com', external_id: 'other' }]) {
      const res = await create(body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('domain_already_exists');
    }
    await create({ name: 'plain.example.com' });
    expect((await create({ name: 'plain.example.com' })).body.error.code).toBe('domain_already_exists');
  });

  it('refuses an external_id held by a domain of another name: 409 external_id_conflict', async () => {
    await create({ name: 'holder.example.com', external_id: 'held' });
    const res = await create({ name: 'other.example.com', external_id: ' held' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('external_id_conflict');
  });

  it('keeps names and external_ids per account', async () => {
    const other = await api.createAccount('Other');
    await create({ name: 'shared.example.com', external_id: 'shared' });
    const res = await create({ name: 'shared.example.com', external_id: 'shared' }, other.management_key);
    expect(res.status).toBe(201);
  });

  it('settles concurrent creations of one name without a 500', async () => {
    const same = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'race.example.com', external_id: 'race' })));
    expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);

    const clashing = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ name: 'race2.example.com', external_id: `race2-${i}` })));
    expect(clashing.filter((r) => r.status === 201)).toHaveLength(1);
    expect(clashing.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(Array(5).fill('domain_already_exists'));
  });

  it('answers a body that is not JSON with 400 invalid_json, and a non-JSON content type with 415', async () => {
    const broken = await api.http
      .post('/v1/domains')
      .set('Authorization', `Bearer ${owner.management_key}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
    const text = await api.http
      .post('/v1/domains')
      .set('Authorization', `Bearer ${owner.management_key}`)
      .set('Content-Type', 'text/plain')
      .send('name=example.com');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
  });
});
