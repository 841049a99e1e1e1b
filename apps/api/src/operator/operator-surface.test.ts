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

  it("refuses the dashboard's changes from another site or with a body a form could send; no X-Powered-By anywhere", async () => {
    const basic = `Basic ${Buffer.from(`ops:${OPERATOR_TOKEN}`).toString('base64')}`;
    const pause = () => api.http.put('/admin/queues/api/queues/deliveries/pause').set('Authorization', basic);
    const crossSite = [
      await pause().set('Sec-Fetch-Site', 'cross-site'),
      await pause().set('Sec-Fetch-Site', 'same-site'),
      await pause().set('Origin', 'https://evil.example'),
      await api.http.post('/admin/queues/api/queues/deliveries/add').set('Authorization', basic).set('Origin', 'null'),
    ];
    for (const res of crossSite) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('cross_site_request');
    }
    // A cross-site form posts text/plain, urlencoded or multipart bodies with the browser's cached credentials.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await api.http
        .post('/admin/queues/api/queues/deliveries/add')
        .set('Authorization', basic)
        .set('Content-Type', type)
        .send('{"name":"deliver","data":{}}');
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
    expect(await api.deps.deliveryQueue.queue.count()).toBe(0);
    expect(await api.deps.deliveryQueue.queue.isPaused()).toBe(false);

    // Its own pages: same-origin, JSON or no body.
    const same = await pause().set('Sec-Fetch-Site', 'same-origin');
    expect(same.status).toBe(200);
    const host = await pause().set('Host', 'ops.example:3000').set('Origin', 'https://ops.example:3000');
    expect(host.status).toBe(200);
    expect((await api.http.put('/admin/queues/api/queues/deliveries/resume').set('Authorization', basic).send({})).status).toBe(200);
    expect(await api.deps.deliveryQueue.queue.isPaused()).toBe(false);

    const answers = [
      await api.http.get('/admin/queues').set('Authorization', basic),
      await api.http.get('/admin/queues/api/queues').set('Authorization', basic),
      await api.http.get('/admin/queues/static/favicon.ico').set('Authorization', basic),
      await api.http.get('/admin/queues/api/nothing').set('Authorization', basic),
      await api.http.get('/admin/queues'),
      await api.http.get('/healthz'),
      await api.http.get('/v1/nothing'),
    ];
    for (const res of answers) expect(res.headers['x-powered-by']).toBeUndefined();
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
