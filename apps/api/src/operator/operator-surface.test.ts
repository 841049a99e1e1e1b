import { startTestApi, type TestApi } from '../testing';

const OPERATOR_TOKEN = 'operator-token-for-tests-0123';
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
});
afterAll(() => api.close());

describe('operator surface', () => {
  it('refuses the queue dashboard without the operator token', async () => {
    const res = await api.http.get('/admin/queues');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('Basic');
    const wrong = await api.http.get('/admin/queues').set('Authorization', 'Bearer not-the-token-at-all');
    expect(wrong.status).toBe(401);
    const account = await api.createAccount();
    const withApiKey = await api.http.get('/admin/queues').set('Authorization', `Bearer ${account.management_key}`);
    expect(withApiKey.status).toBe(401);
    for (const path of ['/admin/queues', '/metrics']) {
      expect((await api.http.get(path).set('Authorization', `Bearer ${OPERATOR_TOKEN} junk`)).status).toBe(401);
    }
  });

  it('serves Bull Board with the delivery queue to an operator (Bearer or Basic)', async () => {
    const page = await api.http.get('/admin/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    const basic = `Basic ${Buffer.from(`ops:${OPERATOR_TOKEN}`).toString('base64')}`;
    const queues = await api.http.get('/admin/queues/api/queues').set('Authorization', basic);
    expect(queues.status).toBe(200);
    expect(queues.body.queues.map((q: { name: string }) => q.name)).toContain('deliveries');
  });

  it('serves Prometheus metrics to an operator only, with HTTP metrics by route pattern', async () => {
    expect((await api.http.get('/metrics')).status).toBe(401);
    await api.http.get('/v1/emails/em_doesnotexist');
    const res = await api.http.get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('mailer_http_request_duration_seconds_bucket');
    expect(res.text).toMatch(/route="\/healthz"|route="unmatched"/);
    expect(res.text).toContain('mailer_queue_jobs');
    expect(res.text).not.toContain('em_doesnotexist');
  });
});
