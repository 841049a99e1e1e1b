import { sendingAccount } from '../testing/sending-account';
import { startTestApi, type TestApi } from '../testing';

/** What operators read on the API (docs/api-decisions.md, "Operations"): /metrics and the access log. */
const OPERATOR_TOKEN = 'operator-token-for-tests-0123';
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
});
afterAll(() => api.close());

async function scrape(): Promise<string> {
  const res = await api.http.get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
  expect(res.status).toBe(200);
  return res.text;
}

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('/metrics', () => {
  it('counts accepted messages and recipients (not replays), refusals by code, and the owed deliveries from PostgreSQL', async () => {
    const acme = await sendingAccount(api);
    const first = await acme.send(acme.message({ to: ['a@example.test', 'b@example.test'], cc: ['c@example.test'] }), 'k-1');
    expect(first.status).toBe(202);
    expect((await acme.send(acme.message({ to: ['a@example.test', 'b@example.test'], cc: ['c@example.test'] }), 'k-1')).headers['idempotent-replayed']).toBe('true');
    expect((await acme.send(acme.message({ bcc: ['d@example.test', 'ANN@example.test'] }))).status).toBe(202);
    expect((await acme.send(acme.message({ from: 'nobody@acme.test' }))).status).toBe(422);
    expect((await api.http.get('/v1/emails')).status).toBe(401);

    // A minute later, the oldest owed delivery is a minute old.
    api.clock.now = new Date(Date.now() + 60_000);
    const text = await scrape();
    api.clock.now = undefined;
    expect(value(text, 'mailer_emails_accepted_total')).toBe(2);
    // 3 unique, then 2 (ANN@ is the to recipient ann@ again).
    expect(value(text, 'mailer_recipients_accepted_total')).toBe(5);
    expect(value(text, 'mailer_http_refusals_total{code="sender_not_allowed"}')).toBe(1);
    expect(value(text, 'mailer_http_refusals_total{code="unauthorized"}')).toBe(1);
    expect(value(text, 'mailer_deliveries_owed{status="queued"}')).toBe(5);
    expect(value(text, 'mailer_deliveries_owed{status="sending"}')).toBe(0);
    expect(value(text, 'mailer_deliveries_owed{status="deferred"}')).toBe(0);
    const age = value(text, 'mailer_oldest_owed_delivery_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(59);
    expect(age).toBeLessThan(120);
  });
});

describe('the access log', () => {
  it('writes one line per request: method, route pattern, status, duration, request id, account id, error code; no key', async () => {
    const acme = await sendingAccount(api, { domain: 'logged.test' });
    const accepted = await acme.send(acme.message());
    const missing = await api.http.get('/v1/emails/em_doesnotexist').set('Authorization', acme.auth);
    const lines = api.logLines().filter((l) => l.message === 'request');
    const of = (requestId: string) => lines.filter((l) => l.request_id === requestId);

    expect(of(accepted.headers['x-request-id']!)).toEqual([
      expect.objectContaining({ level: 'info', method: 'POST', route: '/v1/emails', status: 202, account_id: acme.accountId, duration_ms: expect.any(Number) }),
    ]);
    expect(of(missing.headers['x-request-id']!)).toEqual([
      expect.objectContaining({ method: 'GET', route: '/v1/emails/:id', status: 404, account_id: acme.accountId, error_code: 'email_not_found' }),
    ]);
    const all = JSON.stringify(lines);
    expect(all).not.toContain(acme.sending_key);
    expect(all).not.toContain('em_doesnotexist');
  });

  it("names the queue dashboard's requests by its mount pattern, the console's by its mount path, and unknown paths unmatched", async () => {
    const board = await api.http.get('/admin/queues/api/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
    const unknown = await api.http.get('/v1/nothing-here');
    const consolePage = await api.http.get('/console/login');
    const lines = api.logLines().filter((l) => l.message === 'request');
    expect(lines.find((l) => l.request_id === board.headers['x-request-id'])).toMatchObject({ route: '/admin/queues/*', status: 200 });
    expect(lines.find((l) => l.request_id === unknown.headers['x-request-id'])).toMatchObject({ route: 'unmatched', status: 404 });
    // A route of the console's router carries the console's mount path.
    expect(lines.find((l) => l.request_id === consolePage.headers['x-request-id'])).toMatchObject({ route: '/console/login', status: 200 });
    const metrics = await api.http.get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
    expect(metrics.text).toContain('route="/admin/queues/*"');
  });
});

describe('without OPERATOR_TOKEN', () => {
  it('operator routes answer 503 operator_token_not_configured, saying so', async () => {
    const bare = await startTestApi();
    try {
      for (const path of ['/metrics', '/admin/queues']) {
        const res = await bare.http.get(path).set('Authorization', 'Bearer anything-at-all-0123456789');
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: { code: 'operator_token_not_configured', message: expect.stringContaining('OPERATOR_TOKEN is not configured') } });
      }
    } finally {
      await bare.close();
    }
  });
});
