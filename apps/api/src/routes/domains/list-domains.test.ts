import type { ProvisionedAccount } from '@mailer/db';
import { insertSender } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
let owner: ProvisionedAccount;
let other: ProvisionedAccount;
const created: Record<string, { id: string }> = {};

const list = (query: string, key = owner.management_key) => api.http.get(`/v1/domains${query}`).set('Authorization', `Bearer ${key}`);

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.createAccount();
  other = await api.createAccount('Other');
  for (const [name, externalId] of [['one.example.com', 'first'], ['two.example.com', 'second'], ['three.example.com', undefined]] as const) {
    const res = await api.http
      .post('/v1/domains')
      .set('Authorization', `Bearer ${owner.management_key}`)
      .send({ name, ...(externalId ? { external_id: externalId } : {}) });
    created[name] = res.body;
  }
  await api.http.post('/v1/domains').set('Authorization', `Bearer ${other.management_key}`).send({ name: 'foreign.example.com' });
});
afterAll(() => api.close());

describe('GET /v1/domains', () => {
  it("lists the account's domains newest first in the list envelope", async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual(['three.example.com', 'two.example.com', 'one.example.com']);
  });

  it('pages with limit and next_cursor, without duplicates or gaps', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      seen.push(res.body.data[0].id);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(3);
    expect(seen.sort()).toEqual(Object.values(created).map((d) => d.id).sort());
  });

  it('filters by external_id, normalized as on creation', async () => {
    const res = await list(`?external_id=${encodeURIComponent('  second ')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual(['two.example.com']);
    expect((await list('?external_id=nobody')).body).toEqual({ data: [], next_cursor: null });
  });

  it('refuses a tampered cursor, one from another account and one from a filtered list: 400 invalid_cursor', async () => {
    const page = await list('?limit=1');
    const cursor: string = page.body.next_cursor;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const res of [
      await list(`?cursor=${encodeURIComponent(tampered)}`),
      await list('?cursor=garbage'),
      await list(`?cursor=${encodeURIComponent(cursor)}`, other.management_key),
      await list(`?external_id=first&cursor=${encodeURIComponent(cursor)}`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it.each(['0', '101', 'abc', '1.5', '-1'])('refuses limit=%s with 400 invalid_query', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_query');
    expect(res.body.error.details[0].path).toBe('limit');
  });

  it('refuses unknown query parameters and an invalid external_id filter with 400 invalid_query', async () => {
    for (const query of ['?colour=blue', '?external_id=%20%20', `?external_id=${'x'.repeat(256)}`]) {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });

  it('counts active senders and sums delivery counts over all senders, deleted ones included', async () => {
    const domainId = created['one.example.com']!.id;
    const kept = await insertSender(api.deps.db, owner.account.id, domainId, 'a@one.example.com');
    const gone = await insertSender(api.deps.db, owner.account.id, domainId, 'b@one.example.com');
    await api.deps.db`update senders set accepted_count = 5, bounced_count = 1, failed_count = 2, deferred_count = 3 where id = ${kept.id}`;
    await api.deps.db`update senders set accepted_count = 10, bounced_count = 4, deleted_at = ${new Date()} where id = ${gone.id}`;
    const res = await list('?external_id=first');
    expect(res.body.data[0]).toMatchObject({ sender_count: 1, delivery_counts: { accepted: 15, bounced: 5, failed: 2, deferred: 3 } });
    const one = await api.http.get(`/v1/domains/${domainId}`).set('Authorization', `Bearer ${owner.management_key}`);
    expect(one.body).toMatchObject({ sender_count: 1, delivery_counts: { accepted: 15, bounced: 5, failed: 2, deferred: 3 } });
  });
});
