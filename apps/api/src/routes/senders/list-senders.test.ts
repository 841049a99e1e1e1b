import type { ProvisionedAccount } from '@mailer/db';
import { insertReadyDomain } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
let domainId: string;
let otherDomainId: string;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
  domainId = (await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'example.com')).id;
  otherDomainId = (await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'example.org')).id;
});
afterAll(() => api.close());

const auth = (key = owner.management_key) => ({ Authorization: `Bearer ${key}` });
const list = (domain: string, query = '') => api.http.get(`/v1/domains/${domain}/senders${query}`).set(auth());

async function create(domain: string, email: string) {
  const res = await api.http.post(`/v1/domains/${domain}/senders`).set(auth()).send({ email });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe('GET /v1/domains/:id/senders', () => {
  it('answers an empty page for a domain without senders', async () => {
    const res = await list(otherDomainId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
  });

  it('pages through the domain\'s active senders newest first, without repeats or gaps', async () => {
    const created: string[] = [];
    const base = Date.now();
    for (let i = 0; i < 7; i++) {
      api.clock.now = new Date(base + i * 1000);
      created.push((await create(domainId, `p${i}@example.com`)).id);
    }
    api.clock.now = undefined;
    await create(otherDomainId, 'elsewhere@example.org');
    const deleted = await create(domainId, 'deleted@example.com');
    expect((await api.http.delete(`/v1/senders/${deleted.id}`).set(auth())).status).toBe(204);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(domainId, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data.map((s: { id: string; domain_id: string }) => (expect(s.domain_id).toBe(domainId), s.id)));
      cursor = res.body.next_cursor;
      pages++;
      // A sender created mid-way is newer than every page still to come: it must not appear in them.
      if (pages === 1) {
        api.clock.now = new Date(base + 60_000);
        await create(domainId, 'late@example.com');
        api.clock.now = undefined;
      }
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('breaks ties of created_at by id, so equal timestamps neither repeat nor vanish', async () => {
    api.clock.now = new Date('2026-01-01T00:00:00.000Z');
    const tied: string[] = [];
    for (let i = 0; i < 5; i++) tied.push((await create(otherDomainId, `tie${i}@example.org`)).id);
    api.clock.now = undefined;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(otherDomainId, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...res.body.data.map((s: { id: string }) => s.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    // The one sender created earlier in this file is the newest; the tied ones follow in id order, descending.
    expect(seen.slice(1)).toEqual([...tied].sort().reverse());
    expect(new Set(seen).size).toBe(6);
  });

  it('uses the default limit of 50 and announces no next page on the last one', async () => {
    const res = await list(domainId);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBe(8);
    expect(res.body.next_cursor).toBeNull();
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id', 'domain_id', 'email', 'display_name', 'transport_security_policy', 'configured_state',
        'effective_state', 'last_used_at', 'delivery_counts', 'created_at', 'updated_at',
      ].sort(),
    );
  });

  it('shows effective_state domain_not_ready while the domain is not ready', async () => {
    await api.deps.db`update domains set ownership_status = 'missing' where id = ${otherDomainId}`;
    const res = await list(otherDomainId);
    expect(res.body.data.length).toBe(6);
    expect(new Set(res.body.data.map((s: { effective_state: string }) => s.effective_state))).toEqual(new Set(['domain_not_ready']));
  });

  it('refuses a bad limit with 400 invalid_query', async () => {
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?limit=1.5', '?limit=']) {
      const res = await list(domainId, query);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({ query, status: 400, code: 'invalid_query' });
    }
  });

  it('refuses a cursor of another domain, a tampered one and garbage with 400 invalid_cursor', async () => {
    const first = await list(domainId, '?limit=1');
    const cursor: string = first.body.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const [payload, tag] = cursor.split('.') as [string, string];
    const tampered = `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${tag}`;
    for (const [domain, bad] of [[otherDomainId, cursor], [domainId, tampered], [domainId, 'garbage']] as const) {
      const res = await list(domain, `?cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it('answers 404 domain_not_found for malformed, unknown, deleted and foreign domains', async () => {
    const stranger = await api.createAccount();
    const foreign = await insertReadyDomain(api.deps.db, api.config.encryptionKey, stranger.account.id, 'example.com');
    const gone = await insertReadyDomain(api.deps.db, api.config.encryptionKey, owner.account.id, 'gone.example');
    await api.deps.db`update domains set deleted_at = ${new Date()} where id = ${gone.id}`;
    for (const id of ['x', 'dom_AAAAAAAAAAAAAAAAAAAAAA', gone.id, foreign.id]) {
      const res = await list(id);
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'domain_not_found' });
    }
  });
});
