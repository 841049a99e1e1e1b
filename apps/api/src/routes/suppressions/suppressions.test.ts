import { createManagementKey } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
let manage: (method: 'get' | 'post' | 'delete', path: string, body?: object) => Promise<import('supertest').Response>;

beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 3, perHour: 100, perDay: 100, per30Days: 100, maxActive: 100 } });
  manage = (method, path, body) => {
    const req = api.http[method](path).set('Authorization', `Bearer ${acme.management_key}`);
    return body ? req.send(body) : req;
  };
});
afterAll(() => api.close());

describe('the suppression list over the API', () => {
  it('adds an address once (201, then 200 with the entry as it stands), normalized as recipients are', async () => {
    const created = await manage('post', '/v1/suppressions', { email: 'Gone@Bücher.example' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ email: 'Gone@xn--bcher-kva.example', reason: 'manual', stream: null, email_id: null, created_at: expect.any(String) });
    expect(created.headers.location).toBe('/v1/suppressions/Gone%40xn--bcher-kva.example');
    const again = await manage('post', '/v1/suppressions', { email: 'gone@XN--BCHER-KVA.example' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect((await manage('get', `/v1/suppressions/${encodeURIComponent('GONE@bücher.example')}`)).body).toEqual(created.body);
  });

  it('answers 404 suppression_not_found for an address not listed, or not an address at all, and 422 for a bad body', async () => {
    for (const path of ['/v1/suppressions/nobody%40example.test', '/v1/suppressions/not-an-address']) {
      const res = await manage('get', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('suppression_not_found');
    }
    expect((await manage('delete', '/v1/suppressions/nobody%40example.test')).status).toBe(404);
    const bad = await manage('post', '/v1/suppressions', { email: 'nope', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'extra']);
  });

  it('lists newest first with cursors bound to the email filter, and removes entries', async () => {
    for (const n of [1, 2, 3]) expect((await manage('post', '/v1/suppressions', { email: `list${n}@example.test` })).status).toBe(201);
    const first = await manage('get', '/v1/suppressions?limit=2');
    expect(first.body.data.map((s: { email: string }) => s.email)).toEqual(['list3@example.test', 'list2@example.test']);
    const second = await manage('get', `/v1/suppressions?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data[0].email).toBe('list1@example.test');
    const filtered = await manage('get', `/v1/suppressions?email=LIST2@example.test&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(filtered.status).toBe(400);
    expect(filtered.body.error.code).toBe('invalid_cursor');
    expect((await manage('get', '/v1/suppressions?email=LIST2@example.test')).body.data.map((s: { email: string }) => s.email)).toEqual(['list2@example.test']);
    expect((await manage('delete', '/v1/suppressions/list2%40example.test')).status).toBe(204);
    expect((await manage('get', '/v1/suppressions/list2%40example.test')).status).toBe(404);
  });

  it('needs a management key with the suppressions scopes', async () => {
    const readOnly = (await createManagementKey(api.deps.db, acme.accountId, ['suppressions:read'])).key;
    const domainsOnly = (await createManagementKey(api.deps.db, acme.accountId, ['domains:write'])).key;
    expect((await api.http.get('/v1/suppressions').set('Authorization', `Bearer ${readOnly}`)).status).toBe(200);
    const write = await api.http.post('/v1/suppressions').set('Authorization', `Bearer ${readOnly}`).send({ email: 'x@example.test' });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ code: 'insufficient_scope', details: [{ message: expect.stringContaining('suppressions:write') }] });
    expect((await api.http.get('/v1/suppressions').set('Authorization', `Bearer ${domainsOnly}`)).status).toBe(403);
    expect((await api.http.get('/v1/suppressions').set('Authorization', acme.auth)).body.error.code).toBe('wrong_key_type');
  });
});

describe('sending to suppressed recipients', () => {
  it('accepts the message and fails those deliveries at once, counting no usage and no active delivery', async () => {
    await manage('post', '/v1/suppressions', { email: 'blocked@example.test' });
    await manage('post', '/v1/suppressions', { email: 'hidden@example.test' });
    const res = await acme.send(acme.message({ to: ['BLOCKED@example.test', 'ok@example.test'], bcc: ['hidden@example.test'] }));
    expect(res.status).toBe(202);
    expect(res.headers['ratelimit-remaining']).toBe('2');
    const detail = (await acme.get(`/v1/emails/${res.body.id}`)).body;
    expect(detail.status).toBe('queued');
    expect(detail.deliveries).toEqual([
      expect.objectContaining({ recipient: 'BLOCKED@example.test', status: 'failed', attempt_count: 0, cause: { code: 'recipient_suppressed', permanent: true, smtp_code: null, enhanced_status: null } }),
      expect.objectContaining({ recipient: 'ok@example.test', status: 'queued' }),
    ]);
    expect(detail.bcc_deliveries).toMatchObject({ failed: 1 });
    expect(detail.events.filter((e: { type: string }) => e.type === 'failed')).toEqual([
      expect.objectContaining({ recipient: 'BLOCKED@example.test', cause: expect.objectContaining({ code: 'recipient_suppressed' }) }),
      expect.not.objectContaining({ recipient: expect.anything() }),
    ]);
    const [usage] = await api.deps.db`select active_deliveries, recipients_total from account_usage where account_id = ${acme.accountId}`;
    expect(usage).toMatchObject({ active_deliveries: 1, recipients_total: '1' });
  });

  it('fails a message whose recipients are all suppressed, and gives it no delivery job', async () => {
    const res = await acme.send(acme.message({ to: ['blocked@example.test'], cc: ['hidden@example.test'] }));
    expect(res.status).toBe(202);
    const detail = (await acme.get(`/v1/emails/${res.body.id}`)).body;
    expect(detail).toMatchObject({ status: 'failed', cause: { code: 'recipient_suppressed' }, timestamps: { completed_at: expect.any(String) } });
    expect(await api.deps.deliveryQueue.queue.getJobCounts('waiting', 'delayed', 'prioritized')).toEqual({ waiting: 1, delayed: 0, prioritized: 0 });
  });
});

describe('suppressions per stream', () => {
  let streams: SendingAccount;
  let manageStreams: typeof manage;
  beforeAll(async () => {
    streams = await sendingAccount(api, { domain: 'streams.test', limits: GENEROUS_LIMITS });
    manageStreams = (method, path, body) => {
      const req = api.http[method](path).set('Authorization', `Bearer ${streams.management_key}`);
      return body ? req.send(body) : req;
    };
  });

  it('keeps an entry per stream: a broadcast entry stops broadcast mail only, and is removed for that stream', async () => {
    const entry = await manageStreams('post', '/v1/suppressions', { email: 'news@example.test', stream: 'broadcast' });
    expect(entry.status).toBe(201);
    expect(entry.body).toMatchObject({ email: 'news@example.test', reason: 'manual', stream: 'broadcast' });
    expect((await manageStreams('post', '/v1/suppressions', { email: 'news@example.test', stream: 'transactional' })).status).toBe(201);
    expect((await manageStreams('get', '/v1/suppressions?email=news@example.test')).body.data.map((s: { stream: string }) => s.stream).sort()).toEqual(['broadcast', 'transactional']);
    expect((await manageStreams('delete', '/v1/suppressions/news%40example.test?stream=transactional')).status).toBe(204);
    expect((await manageStreams('get', '/v1/suppressions/news%40example.test?stream=transactional')).status).toBe(404);
    expect((await manageStreams('get', '/v1/suppressions/news%40example.test')).body.stream).toBe('broadcast');

    const broadcast = await streams.send(streams.message({ to: ['news@example.test'], type: 'broadcast' }));
    const transactional = await streams.send(streams.message({ to: ['news@example.test'] }));
    expect((await streams.get(`/v1/emails/${broadcast.body.id}`)).body).toMatchObject({ type: 'broadcast', status: 'failed', deliveries: [{ cause: { code: 'recipient_suppressed' } }] });
    expect((await streams.get(`/v1/emails/${transactional.body.id}`)).body).toMatchObject({ type: 'transactional', status: 'queued' });
  });

  it('refuses a stream that does not exist, by name', async () => {
    const res = await manageStreams('post', '/v1/suppressions', { email: 'x@example.test', stream: 'marketing' });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['stream']);
    const listed = await manageStreams('get', '/v1/suppressions?stream=marketing');
    expect(listed.status).toBe(400);
    expect(listed.body.error.details.map((d: { path: string }) => d.path)).toEqual(['stream']);
  });
});
