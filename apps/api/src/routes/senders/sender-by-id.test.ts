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

const auth = (key = owner.management_key) => ({ Authorization: `Bearer ${key}` });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
async function newSender(body: Record<string, unknown> = {}) {
  const res = await api.http
    .post(`/v1/domains/${domainId}/senders`)
    .set(auth())
    .send({ email: `s${++counter}@example.com`, ...body });
  expect(res.status).toBe(201);
  return res.body as Record<string, unknown> & { id: string; updated_at: string };
}
const patch = (id: string, body: unknown, key?: string) => api.http.patch(`/v1/senders/${id}`).set(auth(key)).send(body as object);

describe('GET /v1/senders/:id', () => {
  it('returns the sender with counts and last use from its row', async () => {
    const sender = await newSender({ display_name: 'Acme' });
    const lastUsed = new Date('2026-11-20T08:30:00.123Z');
    await api.deps.db`
      update senders set accepted_count = 7, bounced_count = 2, failed_count = 1, deferred_count = 3, last_used_at = ${lastUsed}
      where id = ${sender.id}`;
    const res = await api.http.get(`/v1/senders/${sender.id}`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...sender,
      last_used_at: '2026-11-20T08:30:00.123Z',
      delivery_counts: { accepted: 7, bounced: 2, failed: 1, deferred: 3 },
    });
  });

  it('follows the domain readiness in effective_state', async () => {
    const sender = await newSender();
    expect(sender.effective_state).toBe('active');
    await api.deps.db`update domains set dkim_status = 'mismatch' where id = ${domainId}`;
    const notReady = await api.http.get(`/v1/senders/${sender.id}`).set(auth());
    expect(notReady.body).toMatchObject({ configured_state: 'enabled', effective_state: 'domain_not_ready' });
    await api.deps.db`update domains set dkim_status = 'verified' where id = ${domainId}`;
    const ready = await api.http.get(`/v1/senders/${sender.id}`).set(auth());
    expect(ready.body.effective_state).toBe('active');
  });
});

describe('PATCH /v1/senders/:id', () => {
  it('changes the display name and policy and bumps updated_at', async () => {
    const sender = await newSender();
    await pause(15);
    const res = await patch(sender.id, { display_name: ' Acme Billing ', transport_security_policy: 'require_tls' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Acme Billing', transport_security_policy: 'require_tls' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(sender.updated_at));
    expect(res.body.created_at).toBe(sender.created_at);
    const fetched = await api.http.get(`/v1/senders/${sender.id}`).set(auth());
    expect(fetched.body).toEqual(res.body);
  });

  it('leaves everything, updated_at included, unchanged on a semantic no-op', async () => {
    const sender = await newSender({ display_name: 'Acme', transport_security_policy: 'require_tls' });
    for (const body of [{}, { display_name: 'Acme' }, { display_name: '\u3000Acme  ' }, { transport_security_policy: 'require_tls' }]) {
      await pause(15);
      const res = await patch(sender.id, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(sender);
    }
    // No body at all is the empty update too.
    const bare = await api.http.patch(`/v1/senders/${sender.id}`).set(auth());
    expect(bare.status).toBe(200);
    expect(bare.body.updated_at).toBe(sender.updated_at);
  });

  it('clears the display name with null, and a second null is a no-op', async () => {
    const sender = await newSender({ display_name: 'Acme' });
    await pause(15);
    const cleared = await patch(sender.id, { display_name: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.display_name).toBeNull();
    expect(cleared.body.updated_at).not.toBe(sender.updated_at);
    await pause(15);
    const again = await patch(sender.id, { display_name: null });
    expect(again.body).toEqual(cleared.body);
  });

  it('bumps updated_at when only one of two members changes', async () => {
    const sender = await newSender({ display_name: 'Acme' });
    await pause(15);
    const res = await patch(sender.id, { display_name: 'Acme', transport_security_policy: 'require_tls' });
    expect(res.body.transport_security_policy).toBe('require_tls');
    expect(res.body.updated_at).not.toBe(sender.updated_at);
  });

  it('validates the body: bounds, policy values, unknown members, email is not patchable', async () => {
    const sender = await newSender();
    const cases: [unknown, string[]][] = [
      [{ display_name: '' }, ['display_name']],
      [{ display_name: '😀'.repeat(65) }, ['display_name']],
      [{ display_name: 'a'.repeat(129) }, ['display_name']],
      [{ display_name: 'x\u0085' }, ['display_name']],
      [{ display_name: 5 }, ['display_name']],
      [{ transport_security_policy: 'none' }, ['transport_security_policy']],
      [{ transport_security_policy: null }, ['transport_security_policy']],
      [{ email: 'other@example.com' }, ['email']],
      [{ display_name: 'ok', nested: { a: 1 } }, ['nested']],
    ];
    for (const [body, paths] of cases) {
      const res = await patch(sender.id, body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(paths);
    }
    const unchanged = await api.http.get(`/v1/senders/${sender.id}`).set(auth());
    expect(unchanged.body).toEqual(sender);
  });

  it('accepts display names at the bounds', async () => {
    const sender = await newSender();
    for (const name of ['a'.repeat(128), '𝄞'.repeat(64), 'e\u0301'.repeat(64)]) {
      const res = await patch(sender.id, { display_name: name });
      expect(res.status).toBe(200);
      expect(res.body.display_name).toBe(name);
    }
  });

  it('answers 400 invalid_json for an unparseable body', async () => {
    const sender = await newSender();
    const res = await api.http.patch(`/v1/senders/${sender.id}`).set(auth()).set('Content-Type', 'application/json').send('{"display_name":');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });
});

describe('DELETE /v1/senders/:id', () => {
  it('answers 204, then the sender is sender_not_found on every route and gone from the list', async () => {
    const sender = await newSender();
    const res = await api.http.delete(`/v1/senders/${sender.id}`).set(auth());
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const [row] = await api.deps.db`select configured_state as "configuredState", deleted_at as "deletedAt" from senders where id = ${sender.id}`;
    expect(row).toMatchObject({ configuredState: 'disabled', deletedAt: expect.any(Date) });
    for (const res of [
      await api.http.get(`/v1/senders/${sender.id}`).set(auth()),
      await patch(sender.id, { display_name: 'x' }),
      await api.http.delete(`/v1/senders/${sender.id}`).set(auth()),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('sender_not_found');
    }
    const list = await api.http.get(`/v1/domains/${domainId}/senders?limit=100`).set(auth());
    expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(sender.id);
  });
});

describe('sender ids that are not the caller\'s', () => {
  it('answers 404 sender_not_found for malformed, unknown and foreign ids on GET, PATCH and DELETE', async () => {
    const stranger = await api.createAccount();
    const theirDomain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, stranger.account.id, 'example.com');
    const theirs = await api.http
      .post(`/v1/domains/${theirDomain.id}/senders`)
      .set(auth(stranger.management_key))
      .send({ email: 'theirs@example.com' });
    expect(theirs.status).toBe(201);
    const ids = ['nope', 'snd_', 'snd_short', `${theirs.body.id}x`, 'dom_AAAAAAAAAAAAAAAAAAAAAA', 'snd_AAAAAAAAAAAAAAAAAAAAAA', theirs.body.id];
    for (const id of ids) {
      for (const res of [
        await api.http.get(`/v1/senders/${id}`).set(auth()),
        // The body is invalid too: the lookup answers first.
        await patch(id, { unknown: 1 }),
        await api.http.delete(`/v1/senders/${id}`).set(auth()),
      ]) {
        expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'sender_not_found' });
      }
    }
    const still = await api.http.get(`/v1/senders/${theirs.body.id}`).set(auth(stranger.management_key));
    expect(still.body).toEqual(theirs.body);
  });
});
