import { randomUUID } from 'node:crypto';
import { startTestApi, type TestApi } from '../../testing';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount, type SendingAccountOptions } from '../../testing/sending-account';

/** POST /v1/emails/batch: all or nothing under one Idempotency-Key (docs/api-decisions.md, "Send API additions"). */
let api: TestApi;
let domainCounter = 0;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const account = (options: SendingAccountOptions = { limits: GENEROUS_LIMITS }) => sendingAccount(api, { domain: `batch${++domainCounter}.test`, ...options });
const batch = (acc: SendingAccount, body: unknown, key: string = randomUUID()) =>
  api.http.post('/v1/emails/batch').set('Authorization', acc.auth).set('Idempotency-Key', key).send(body as object);

/** Everything a batch could leave behind in the account. */
const stored = async (accountId: string) =>
  (
    await api.deps.db`
      select (select count(*) from emails where account_id = ${accountId})::int as emails,
             (select count(*) from deliveries where account_id = ${accountId})::int as deliveries,
             (select coalesce(sum(recipients), 0) from recipient_usage where account_id = ${accountId})::int as usage,
             (select count(*) from idempotency_keys where account_id = ${accountId})::int as keys`
  )[0];

describe('POST /v1/emails/batch', () => {
  it('accepts every message, answering their ids in order; each is a message of its own', async () => {
    const acc = await account();
    const items = ['ann', 'bob', 'cy'].map((name) => acc.message({ to: `${name}@example.test`, subject: `for ${name}`, tags: { who: name } }));
    const res = await batch(acc, items);
    expect(res.status).toBe(202);
    expect(res.headers['ratelimit-limit']).toBeDefined();
    expect(res.body.data).toHaveLength(3);
    for (const [i, item] of res.body.data.entries()) {
      expect(item).toEqual({ id: expect.stringMatching(/^em_/), status: 'queued', created_at: expect.any(String) });
      const detail = (await acc.get(`/v1/emails/${item.id}`)).body;
      expect(detail).toMatchObject({ subject: `for ${['ann', 'bob', 'cy'][i]}`, tags: { who: ['ann', 'bob', 'cy'][i] } });
    }
    expect(await stored(acc.accountId)).toEqual({ emails: 3, deliveries: 3, usage: 3, keys: 1 });
  });

  it('refuses the whole batch for one invalid item, with details under its index, and stores nothing', async () => {
    const acc = await account();
    const res = await batch(acc, [acc.message(), acc.message(), acc.message(), acc.message({ to: ['ok@example.test', 'not an address'], tags: { 'a b': 'x' } })]);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: '[3].to[1]', message: 'not a valid email address' },
      { path: '[3].tags.a b', message: expect.stringMatching(/1 to 64/) },
    ]);
    expect(await stored(acc.accountId)).toEqual({ emails: 0, deliveries: 0, usage: 0, keys: 0 });
  });

  it('points at a lone surrogate in an item by its index', async () => {
    const acc = await account();
    const body = JSON.stringify([acc.message(), acc.message({ subject: 'SUBJECT' })]).replace('SUBJECT', 'a\\ud800');
    const res = await api.http.post('/v1/emails/batch').set('Authorization', acc.auth).set('Idempotency-Key', randomUUID()).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: '[1].subject', message: expect.any(String) }]);
    expect(await stored(acc.accountId)).toEqual({ emails: 0, deliveries: 0, usage: 0, keys: 0 });
  });

  it('refuses an empty batch, more than 100 messages and anything but an array', async () => {
    const acc = await account();
    const empty = await batch(acc, []);
    expect(empty.status).toBe(422);
    expect(empty.body.error.details).toEqual([{ path: '(body)', message: 'must hold at least one message' }]);
    const tooMany = await batch(acc, Array.from({ length: 101 }, () => acc.message()));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details).toEqual([{ path: '(body)', message: 'at most 100 messages' }]);
    expect((await batch(acc, acc.message())).body.error.details).toEqual([{ path: '(body)', message: 'must be an array of messages' }]);
    expect((await batch(acc, Array.from({ length: 100 }, () => acc.message()))).status).toBe(202);
  });

  it('refuses the whole batch for a sender not allowed in one item (422 sender_not_allowed at its index)', async () => {
    const acc = await account();
    const res = await batch(acc, [acc.message(), acc.message({ from: 'nobody@elsewhere.test' })]);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'sender_not_allowed', details: [{ path: '[1].from' }] });
    expect(await stored(acc.accountId)).toEqual({ emails: 0, deliveries: 0, usage: 0, keys: 0 });
  });

  it('counts the whole batch against the plan at once: over it, 429 and nothing stored', async () => {
    const acc = await account({ limits: { perMinute: 6 } });
    expect((await acc.send(acc.message({ to: ['first@example.test'] }))).status).toBe(202);
    const before = await stored(acc.accountId);
    const items = Array.from({ length: 3 }, (_, i) => acc.message({ to: [`a${i}@example.test`, `b${i}@example.test`] }));
    const res = await batch(acc, items);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
    expect(res.headers['retry-after']).toBeDefined();
    expect(await stored(acc.accountId)).toEqual(before);
    // What fits is admitted whole, and the key of the refused batch was not consumed.
    expect((await batch(acc, items.slice(0, 2))).status).toBe(202);
    expect(await stored(acc.accountId)).toMatchObject({ emails: 3, deliveries: 5, usage: 5 });
  });

  it('refuses for good a batch whose recipients together exceed a window: 422 plan_limit_exceeded, nothing stored', async () => {
    const acc = await account({ limits: { perMinute: 5 } });
    const items = Array.from({ length: 3 }, (_, i) => acc.message({ to: [`a${i}@example.test`, `b${i}@example.test`] }));
    const res = await batch(acc, items, 'too-large');
    expect(res.status).toBe(422);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body.error).toMatchObject({ code: 'plan_limit_exceeded', details: [{ path: 'plan.per_minute' }] });
    expect(await stored(acc.accountId)).toEqual({ emails: 0, deliveries: 0, usage: 0, keys: 0 });
    expect((await batch(acc, items.slice(0, 2), 'too-large')).status).toBe(202);
  });

  it('counts the batch against active deliveries too', async () => {
    const acc = await account({ limits: { ...GENEROUS_LIMITS, maxActive: 3 } });
    const res = await batch(acc, [acc.message({ to: ['a@example.test', 'b@example.test'] }), acc.message({ to: ['c@example.test', 'd@example.test'] })]);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('active_delivery_limit_exceeded');
    expect(await stored(acc.accountId)).toMatchObject({ emails: 0, deliveries: 0 });
  });

  it('replays the whole batch for its key, creating nothing, and refuses the key for another batch', async () => {
    const acc = await account();
    const key = randomUUID();
    const items = [acc.message({ to: 'a@example.test' }), acc.message({ to: 'b@example.test' })];
    const first = await batch(acc, items, key);
    expect(first.status).toBe(202);
    const again = await batch(acc, JSON.parse(JSON.stringify(items)), key);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await stored(acc.accountId)).toEqual({ emails: 2, deliveries: 2, usage: 2, keys: 1 });
    const other = await batch(acc, [items[0]], key);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });

  it('needs an Idempotency-Key and checks scheduled_at of each item', async () => {
    const acc = await account();
    const noKey = await api.http.post('/v1/emails/batch').set('Authorization', acc.auth).send([acc.message()]);
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe('idempotency_key_required');
    const far = new Date(Date.now() + 8 * 24 * 3600_000).toISOString();
    const res = await batch(acc, [acc.message(), acc.message({ scheduled_at: far })]);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: '[1].scheduled_at', message: 'must be at most 7 days ahead' }]);
  });

  it('is a route of its own, not GET /v1/emails/{id}', async () => {
    const acc = await account();
    const res = await api.http.get('/v1/emails/batch').set('Authorization', acc.auth);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('email_not_found');
  });
});
