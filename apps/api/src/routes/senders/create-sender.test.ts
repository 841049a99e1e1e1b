import type { ProvisionedAccount } from '@mailer/db';
import { insertReadyDomain } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
let domainId: string;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
  domainId = (await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'example.com')).id;
});
afterAll(() => api.close());

const post = (domain: string, body: unknown, key = owner.management_key) =>
  api.http.post(`/v1/domains/${domain}/senders`).set('Authorization', `Bearer ${key}`).send(body as object);

describe('POST /v1/domains/:id/senders', () => {
  it('creates a sender: 201 with the full representation and defaults', async () => {
    const res = await post(domainId, { email: 'Billing@Example.COM' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^snd_[0-9A-Za-z]{22}$/),
      domain_id: domainId,
      email: 'Billing@example.com',
      display_name: null,
      transport_security_policy: 'opportunistic',
      configured_state: 'enabled',
      effective_state: 'active',
      last_used_at: null,
      delivery_counts: { accepted: 0, bounced: 0, failed: 0, deferred: 0 },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect(res.headers.location).toBe(`/v1/senders/${res.body.id}`);
    const fetched = await api.http.get(`/v1/senders/${res.body.id}`).set('Authorization', `Bearer ${owner.management_key}`);
    expect(fetched.body).toEqual(res.body);
  });

  it('stores a trimmed display name and the chosen policy', async () => {
    const res = await post(domainId, { email: 'ops@example.com', display_name: '\u3000 Acme Ops \n', transport_security_policy: 'require_tls' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ display_name: 'Acme Ops', transport_security_policy: 'require_tls' });
  });

  it('accepts an IDN domain part for an A-label domain', async () => {
    const idn = await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'xn--bcher-kva.de');
    const res = await post(idn.id, { email: 'Post@BÜCHER.de' });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe('Post@xn--bcher-kva.de');
  });

  it('refuses a domain part other than the nested domain: 422 with details path email', async () => {
    for (const email of ['a@other.com', 'a@mail.example.com']) {
      const res = await post(domainId, { email });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual([{ path: 'email', message: expect.stringContaining('example.com') }]);
    }
  });

  it('refuses a missing or malformed email', async () => {
    const missing = await post(domainId, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([{ path: 'email', message: 'is required' }]);
    for (const email of ['not-an-address', 'Name <a@example.com>', 'a b@example.com', 42]) {
      const res = await post(domainId, { email });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([{ path: 'email', message: expect.any(String) }]);
    }
  });

  it('refuses an unknown transport_security_policy and lists every problem', async () => {
    const res = await post(domainId, { email: 'nope', display_name: '', transport_security_policy: 'always' });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['display_name', 'email', 'transport_security_policy']);
  });

  it('holds display_name to its Unicode bounds', async () => {
    const cases: [string, number][] = [
      ['a'.repeat(128), 201],
      ['a'.repeat(129), 422],
      ['😀'.repeat(64), 201],
      ['😀'.repeat(65), 422],
      ['e\u0301'.repeat(64), 201],
      [`${'e\u0301'.repeat(64)}e`, 422],
      ['€'.repeat(86), 422],
      [`\u3000${'a'.repeat(128)}\u3000`, 201],
      ['Acme\u0007', 422],
      ['Acme\u0085Ops', 422],
      ['Acme\r\nBcc: x@evil.test', 422],
      ['Acme\u0000', 422],
      ['   ', 422],
    ];
    for (const [index, [displayName, status]] of cases.entries()) {
      const res = await post(domainId, { email: `bounds${index}@example.com`, display_name: displayName });
      expect({ displayName, status: res.status }).toEqual({ displayName, status });
      if (status === 201) expect(res.body.display_name).toBe(displayName.trim());
      else expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'display_name' })]));
    }
  });

  it('treats an explicit null display_name as none', async () => {
    const res = await post(domainId, { email: 'null-name@example.com', display_name: null });
    expect(res.status).toBe(201);
    expect(res.body.display_name).toBeNull();
  });

  it('refuses a duplicate active sender case-insensitively: 409 sender_already_exists', async () => {
    expect((await post(domainId, { email: 'dup@example.com' })).status).toBe(201);
    const res = await post(domainId, { email: 'DUP@EXAMPLE.com' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('sender_already_exists');
  });

  it('lets the same address exist under another account\'s domain of the same name', async () => {
    const stranger = await api.createAccount();
    const theirs = await insertReadyDomain(api.deps.db, api.config.encryptionKey, stranger.account.id, 'example.com');
    expect((await post(domainId, { email: 'shared@example.com' })).status).toBe(201);
    expect((await post(theirs.id, { email: 'shared@example.com' }, stranger.management_key)).status).toBe(201);
  });

  it('creates exactly one sender when the same address is posted concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post(domainId, { email: i % 2 ? 'race@example.com' : 'RACE@example.com' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('allows the address again after the sender is deleted', async () => {
    const first = await post(domainId, { email: 'again@example.com' });
    const deleted = await api.http.delete(`/v1/senders/${first.body.id}`).set('Authorization', `Bearer ${owner.management_key}`);
    expect(deleted.status).toBe(204);
    const second = await post(domainId, { email: 'Again@example.com' });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('creates under a domain that is not ready, with effective_state domain_not_ready', async () => {
    const pending = await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'pending.example');
    await api.deps.db`update domains set dmarc_status = 'missing' where id = ${pending.id}`;
    const res = await post(pending.id, { email: 'hello@pending.example' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ configured_state: 'enabled', effective_state: 'domain_not_ready' });
  });

  it('answers 404 domain_not_found for malformed, unknown, deleted and foreign domains, before reading the body', async () => {
    const stranger = await api.createAccount();
    const foreign = await insertReadyDomain(api.deps.db, api.config.encryptionKey, stranger.account.id, 'foreign.example');
    const gone = await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'gone.example');
    await api.deps.db`update domains set deleted_at = ${new Date()} where id = ${gone.id}`;
    for (const id of ['nope', 'dom_', 'snd_AAAAAAAAAAAAAAAAAAAAAA', 'dom_AAAAAAAAAAAAAAAAAAAAAA', gone.id, foreign.id]) {
      const res = await post(id, { email: 'a@foreign.example', surprise: true });
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'domain_not_found' });
    }
  });

  it('rejects unknown members: 422 validation_error naming them', async () => {
    const res = await post(domainId, { email: 'x@example.com', displayName: 'typo', extra: 1 });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: 'displayName', message: 'unknown member' },
      { path: 'extra', message: 'unknown member' },
    ]);
  });

  it('answers 400 invalid_json for an unparseable body and 415 for a non-JSON one', async () => {
    const bad = await api.http
      .post(`/v1/domains/${domainId}/senders`)
      .set('Authorization', `Bearer ${owner.management_key}`)
      .set('Content-Type', 'application/json')
      .send('{"email": ');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    const text = await api.http
      .post(`/v1/domains/${domainId}/senders`)
      .set('Authorization', `Bearer ${owner.management_key}`)
      .set('Content-Type', 'text/plain')
      .send('email=a@example.com');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
  });

  it('answers 422 for a body that is not an object', async () => {
    const res = await post(domainId, ['a@example.com']);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
  });
});
