import { setAccountPlan } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 1000, perHour: 1000, perDay: 1000, per30Days: 1000, maxActive: 1000 } });
});
afterAll(() => api.close());
afterEach(() => {
  api.clock.now = undefined;
});

const countEmails = async (accountId: string) => (await api.deps.db`select id from emails where account_id = ${accountId}`).length;
/** The account's usage rows as plain objects. */
const usageRows = async (accountId: string) => [...(await api.deps.db`select * from recipient_usage where account_id = ${accountId} order by cumulative`)];

describe('Idempotency-Key', () => {
  it('replays the original 202 for the same request, with Idempotent-Replayed, creating and counting nothing', async () => {
    const first = await acme.send(acme.message({ to: ['a@example.test', 'b@example.test'] }), 'replay-1');
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const emailsBefore = await countEmails(acme.accountId);
    const usageBefore = await usageRows(acme.accountId);

    // Same JSON after parsing: members reordered, white space added.
    const raw = `{ "content": {"plain": "Thanks for your order."},\n "subject": "Your receipt", "to": ["a@example.test","b@example.test"], "from": "${acme.sender.email}" }`;
    const again = await api.http
      .post('/v1/emails')
      .set('Authorization', acme.auth)
      .set('Idempotency-Key', 'replay-1')
      .set('Content-Type', 'application/json')
      .send(raw);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['ratelimit-remaining']).toBe(first.headers['ratelimit-remaining']);
    expect(await countEmails(acme.accountId)).toBe(emailsBefore);
    expect(await usageRows(acme.accountId)).toEqual(usageBefore);
  });

  it('answers 409 idempotency_conflict for a live key with a different request', async () => {
    expect((await acme.send(acme.message(), 'conflict-1')).status).toBe(202);
    const res = await acme.send(acme.message({ subject: 'Another subject' }), 'conflict-1');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_conflict');
    expect(res.headers['ratelimit-limit']).toBeDefined();
  });

  it('scopes keys to the account', async () => {
    const other = await sendingAccount(api, { domain: 'other.test' });
    expect((await acme.send(acme.message(), 'shared-key')).status).toBe(202);
    const res = await other.send(other.message(), 'shared-key');
    expect(res.status).toBe(202);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps a key live for 24 hours from the first acceptance, then lets it be used anew', async () => {
    const start = new Date('2030-01-01T00:00:00.000Z');
    api.clock.now = start;
    const first = await acme.send(acme.message(), 'expiring');
    expect(first.status).toBe(202);
    api.clock.now = new Date(start.getTime() + 24 * 3600 * 1000 - 1);
    expect((await acme.send(acme.message({ subject: 'other' }), 'expiring')).status).toBe(409);
    expect((await acme.send(acme.message(), 'expiring')).headers['idempotent-replayed']).toBe('true');
    api.clock.now = new Date(start.getTime() + 24 * 3600 * 1000);
    const fresh = await acme.send(acme.message({ subject: 'other' }), 'expiring');
    expect(fresh.status).toBe(202);
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not consume the key of a rejected request', async () => {
    const invalid = await acme.send(acme.message({ to: ['nope'] }), 'after-rejection');
    expect(invalid.status).toBe(422);
    const notAllowed = await acme.send(acme.message({ from: 'nobody@acme.test' }), 'after-rejection');
    expect(notAllowed.status).toBe(422);
    const ok = await acme.send(acme.message({ subject: 'finally valid' }), 'after-rejection');
    expect(ok.status).toBe(202);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not consume the key of a request refused by a limit', async () => {
    const tight = await sendingAccount(api, { domain: 'tight.test', limits: { perMinute: 1 } });
    expect((await tight.send(tight.message())).status).toBe(202);
    expect((await tight.send(tight.message(), 'limited')).status).toBe(429);
    await setAccountPlan(api.deps.db, tight.accountId, { perMinute: 10 });
    const res = await tight.send(tight.message(), 'limited');
    expect(res.status).toBe(202);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates one message for concurrent requests with one key, all answered with the same 202', async () => {
    const before = await countEmails(acme.accountId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => acme.send(acme.message({ subject: 'concurrent' }), 'concurrent-key')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await countEmails(acme.accountId)).toBe(before + 1);
  });

  it('gives concurrent different requests with one key one 202 and conflicts', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => acme.send(acme.message({ subject: `variant ${i}` }), 'racing-key')));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
  });
});
