import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

/** GET /v1/emails filters, and cursors bound to them (docs/api-decisions.md, "Send API additions"). */
let api: TestApi;
let acme: SendingAccount;
const T0 = new Date('2030-04-01T00:00:00.000Z').getTime();
const ids: string[] = [];

beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 1000, perHour: 1000, perDay: 1000, per30Days: 1000, maxActive: 1000 } });
  // Six messages a minute apart; even ones tagged spring, the last one canceled (failed).
  for (let i = 0; i < 6; i++) {
    api.clock.now = new Date(T0 + i * 60_000);
    const res = await acme.send(acme.message({ subject: `m${i}`, tags: { campaign: i % 2 === 0 ? 'spring' : 'autumn', n: String(i) } }));
    expect(res.status).toBe(202);
    ids.push(res.body.id);
  }
  expect((await api.http.post(`/v1/emails/${ids[5]}/cancel`).set('Authorization', acme.auth)).status).toBe(200);
  api.clock.now = undefined;
});
afterAll(() => api.close());

const listed = async (query: string) => {
  const res = await acme.get(`/v1/emails?${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((e: { id: string }) => e.id) as string[];
};

describe('GET /v1/emails filters', () => {
  it('filters by status', async () => {
    expect(await listed('status=failed')).toEqual([ids[5]]);
    expect(await listed('status=queued')).toEqual(ids.slice(0, 5).reverse());
    expect(await listed('status=accepted')).toEqual([]);
  });

  it('filters by tag name:value', async () => {
    expect(await listed('tag=campaign:spring')).toEqual([ids[4], ids[2], ids[0]]);
    expect(await listed(`tag=${encodeURIComponent('n:3')}`)).toEqual([ids[3]]);
    expect(await listed('tag=campaign:winter')).toEqual([]);
  });

  it('filters by created_after and created_before (exclusive), combined with the others', async () => {
    const at = (i: number) => encodeURIComponent(new Date(T0 + i * 60_000).toISOString());
    expect(await listed(`created_after=${at(3)}`)).toEqual([ids[5], ids[4]]);
    expect(await listed(`created_before=${at(2)}`)).toEqual([ids[1], ids[0]]);
    expect(await listed(`created_after=${at(0)}&created_before=${at(4)}&tag=campaign:spring`)).toEqual([ids[2]]);
    expect(await listed(`created_after=${encodeURIComponent('2030-04-01T02:03:30+02:00')}`)).toEqual([ids[5], ids[4]]);
  });

  it('answers 400 invalid_query for a bad filter', async () => {
    const outsideYears = ['created_after=0000-01-01T00:00:00%2B01:00', 'created_before=0001-01-01T00:30:00%2B05:00', 'created_before=9999-12-31T23:30:00-05:00'];
    for (const query of ['status=sent', 'tag=nocolon', 'tag=bad%20name:x', 'created_after=yesterday', 'created_before=2030-04-01', ...outsideYears]) {
      const res = await acme.get(`/v1/emails?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
    // A NUL is refused before any rule or statement sees it.
    const nul = await acme.get('/v1/emails?tag=campaign:spr%00ing');
    expect(nul.status).toBe(400);
    expect(nul.body.error.details).toEqual([{ path: 'tag', message: 'must not contain NUL (U+0000)' }]);
  });

  it('pages a filtered list with its cursor, and refuses that cursor with other filters or none', async () => {
    const first = (await acme.get('/v1/emails?tag=campaign:spring&limit=2')).body;
    expect(first.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[2]]);
    const cursor = encodeURIComponent(first.next_cursor);
    expect(await listed(`tag=campaign:spring&limit=2&cursor=${cursor}`)).toEqual([ids[0]]);
    for (const query of [`cursor=${cursor}`, `tag=campaign:autumn&cursor=${cursor}`, `tag=campaign:spring&status=queued&cursor=${cursor}`]) {
      const res = await acme.get(`/v1/emails?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const unfiltered = (await acme.get('/v1/emails?limit=1')).body.next_cursor;
    expect((await acme.get(`/v1/emails?status=queued&cursor=${encodeURIComponent(unfiltered)}`)).body.error.code).toBe('invalid_cursor');
  });
});
