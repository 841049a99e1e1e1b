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

  it('serves an OpenAPI 3.1 document', async () => {
    const res = await api.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/healthz'].get).toBeDefined();
  });
});
