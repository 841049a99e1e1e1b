import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
const T0 = new Date('2030-02-01T00:00:00.000Z').getTime();
const sentIds: string[] = [];

beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 1000, perHour: 1000, perDay: 1000, per30Days: 1000, maxActive: 1000 } });
  for (let i = 0; i < 7; i++) {
    // Two messages share each instant: the id orders them.
    api.clock.now = new Date(T0 + Math.floor(i / 2) * 1000);
    const res = await acme.send(acme.message({ subject: `message ${i}`, cc: ['cc@example.test'], bcc: ['hidden@example.test'] }));
    expect(res.status).toBe(202);
    sentIds.push(res.body.id);
  }
  api.clock.now = undefined;
});
afterAll(() => api.close());

async function walk(limit: number, between?: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await acme.get(`/v1/emails?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...res.body.data.map((e: { id: string }) => e.id));
    cursor = res.body.next_cursor;
    await between?.();
  } while (cursor);
  return seen;
}

describe('GET /v1/emails', () => {
  it('lists the account’s messages newest first with the list fields', async () => {
    const res = await acme.get('/v1/emails');
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data).toHaveLength(7);
    const [newest] = res.body.data;
    expect(Object.keys(newest).sort()).toEqual(['bcc_count', 'cc', 'created_at', 'from', 'id', 'status', 'subject', 'tags', 'test', 'to', 'track', 'type', 'unsubscribe', 'updated_at']);
    expect(newest).toMatchObject({ status: 'queued', type: 'transactional', from: 'Acme <hello@acme.test>', to: ['ann@example.test'], cc: ['cc@example.test'], bcc_count: 1, subject: 'message 6' });
    const times = res.body.data.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(res.body.data.map((e: { id: string }) => e.id))).toEqual(new Set(sentIds));
  });

  it('pages with an opaque cursor, stable under concurrent inserts', async () => {
    expect(await walk(2)).toEqual((await acme.get('/v1/emails')).body.data.map((e: { id: string }) => e.id));
    const before = (await acme.get('/v1/emails')).body.data.map((e: { id: string }) => e.id);
    const during = await walk(3, async () => {
      expect((await acme.send(acme.message({ subject: 'inserted while paging' }))).status).toBe(202);
    });
    // Each message listed when the walk began is seen exactly once; newer ones start before the cursor.
    expect(during.filter((id) => before.includes(id))).toEqual(before);
    expect(new Set(during).size).toBe(during.length);
  });

  it('keeps other accounts’ messages out', async () => {
    const other = await sendingAccount(api, { domain: 'other.test' });
    expect((await other.get('/v1/emails')).body).toEqual({ data: [], next_cursor: null });
  });

  it('answers 400 invalid_query for a limit outside 1..100 or not an integer', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-1']) {
      const res = await acme.get(`/v1/emails?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
    expect((await acme.get('/v1/emails?limit=100')).status).toBe(200);
    expect((await acme.get('/v1/emails?unknown=1')).body.error.code).toBe('invalid_query');
  });

  it('answers 400 invalid_cursor for a cursor it did not issue for this list and account', async () => {
    const { next_cursor: cursor } = (await acme.get('/v1/emails?limit=1')).body;
    const other = await sendingAccount(api, { domain: 'third.test' });
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [acc, value] of [
      [acme, 'garbage'],
      [acme, tampered],
      [other, cursor],
    ] as const) {
      const res = await acc.get(`/v1/emails?cursor=${encodeURIComponent(value)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const domainsCursor = api.deps.cursors.encode(`domains:${acme.accountId}`, { createdAt: new Date(), id: 'dom_x' });
    expect((await acme.get(`/v1/emails?cursor=${encodeURIComponent(domainsCursor)}`)).body.error.code).toBe('invalid_cursor');
  });
});
