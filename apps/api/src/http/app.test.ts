import { startTestApi, type TestApi } from '../testing';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('the HTTP shell', () => {
  it('answers /healthz and sets X-Request-Id', async () => {
    const res = await api.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('reports database and Redis readiness', async () => {
    const res = await api.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', database: 'ok', redis: 'ok' });
  });

  it('answers an unknown route with 404 not_found in the error shape', async () => {
    const res = await api.http.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('answers a wrong method with 405 method_not_allowed and Allow', async () => {
    const res = await api.http.delete('/healthz');
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('refuses HEAD, which the document does not list, with 405 and the methods it does list', async () => {
    for (const path of ['/healthz', '/v1/emails']) {
      const res = await api.http.head(path);
      expect(res.status).toBe(405);
      expect(res.headers.allow).not.toContain('HEAD');
      expect(res.headers.allow).toContain('GET');
    }
    expect((await api.http.head('/nowhere')).status).toBe(404);
  });

  it('treats a malformed percent-escape in the path as literal text, after authentication', async () => {
    const anonymous = await api.http.get('/v1/domains/%zz');
    expect(anonymous.status).toBe(401);
    const account = await api.createAccount();
    for (const path of ['/v1/domains/%zz', '/v1/domains/%E0%A4%A', '/v1/senders/%ff%fe']) {
      const res = await api.http.get(path).set('Authorization', `Bearer ${account.management_key}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(path.startsWith('/v1/senders') ? 'sender_not_found' : 'domain_not_found');
    }
  });

  it('serves an OpenAPI 3.1 document', async () => {
    const res = await api.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/healthz'].get).toBeDefined();
  });
});
