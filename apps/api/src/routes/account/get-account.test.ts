import { createManagementKey, setAccountPlan } from '@mailer/db';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount } from '../../testing/sending-account';

/** GET /v1/account (docs/api-decisions.md, "Account view and plan limits"). */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => {
  api.clock.now = undefined;
});

const T0 = new Date('2030-06-01T00:00:00.000Z').getTime();
const recipients = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.test`);
const view = (key: string) => api.http.get('/v1/account').set('Authorization', `Bearer ${key}`);

const enabledSince = (at: Date) => ({ status: 'enabled', reason: null, since: at.toISOString(), bounce_rate: 0, complaint_rate: 0 });

describe('GET /v1/account', () => {
  it('shows the plan, the usage intake counts and the sending state, to the sending key and to a management key of any scope', async () => {
    const acc = await sendingAccount(api, { domain: 'account-view.test' });
    const [account] = await api.deps.db`select created_at from accounts where id = ${acc.accountId}`;
    const narrow = await createManagementKey(api.deps.db, acc.accountId, ['suppressions:read']);

    const fresh = await view(acc.sending_key);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({
      id: acc.accountId,
      name: 'Test account',
      plan: { per_minute: 30, per_hour: 300, per_day: 300, per_30_days: 3000, max_active: 250, max_domains: 100, max_webhook_endpoints: 10, max_templates: 100 },
      usage: { minute: 0, hour: 0, day: 0, thirty_days: 0, active: 0 },
      sending: enabledSince(account!.created_at as Date),
      streams: { transactional: { sending: enabledSince(account!.created_at as Date) }, broadcast: { sending: enabledSince(account!.created_at as Date) } },
      test_mode: { per_minute: 100, minute: 0 },
    });

    api.clock.now = new Date(T0);
    const sent = await acc.send(acc.message({ to: recipients(3, 'a'), cc: ['A0@example.test'], bcc: ['b@example.test'] }));
    expect(sent.status).toBe(202);
    api.clock.now = new Date(T0 + 30_000);
    expect((await acc.send(acc.message({ to: recipients(2, 'c') }))).status).toBe(202);

    for (const key of [acc.sending_key, acc.management_key, narrow.key]) {
      const res = await view(key);
      expect(res.status).toBe(200);
      // Unique recipients, as the plan counts them: the duplicate in cc counts once, the BCC counts.
      expect(res.body.usage).toEqual({ minute: 6, hour: 6, day: 6, thirty_days: 6, active: 6 });
    }

    // The minute window is rolling: the first request leaves it 60 s after it was accepted.
    api.clock.now = new Date(T0 + 61_000);
    const later = await view(acc.sending_key);
    expect(later.body.usage).toEqual({ minute: 2, hour: 6, day: 6, thirty_days: 6, active: 6 });
    // The same counters answer RateLimit-Remaining to the next send (the minute window is the tightest).
    const next = await acc.send(acc.message({ to: ['d@example.test'] }));
    expect(Number(next.headers['ratelimit-remaining'])).toBe(30 - later.body.usage.minute - 1);
  });

  it('shows a custom plan as it is set', async () => {
    const acc = await sendingAccount(api, { domain: 'account-plan.test' });
    await setAccountPlan(api.deps.db, acc.accountId, { perMinute: 600, perHour: 20_000, perDay: 100_000, per30Days: 1_000_000, maxActive: 50_000, maxDomains: 500, maxTemplates: 7 });
    expect((await view(acc.sending_key)).body.plan).toEqual({
      per_minute: 600,
      per_hour: 20_000,
      per_day: 100_000,
      per_30_days: 1_000_000,
      max_active: 50_000,
      max_domains: 500,
      max_webhook_endpoints: 10,
      max_templates: 7,
    });
  });

  it("shows the test mode's bound and the test recipients it counts, apart from the plan's usage", async () => {
    const acc = await sendingAccount(api, { domain: 'account-test-mode.test' });
    const sent = await api.http
      .post('/v1/emails')
      .set('Authorization', `Bearer ${acc.test_sending_key}`)
      .set('Idempotency-Key', 'account-view-test-mode')
      .send(acc.message({ to: recipients(3, 't') }));
    expect(sent.status).toBe(202);
    for (const key of [acc.sending_key, acc.test_sending_key]) {
      const res = await view(key);
      expect([res.body.test_mode, res.body.usage.minute]).toEqual([{ per_minute: 100, minute: 3 }, 0]);
    }
  });

  it('refuses a request without a valid key', async () => {
    const res = await api.http.get('/v1/account');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect((await view('svc_live_00000000000000000000000000000000')).status).toBe(401);
  });
});
