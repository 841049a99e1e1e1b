import { WEBHOOK_EVENT_TYPES } from '@mailer/domain';
import { buildApi } from '../server';
import { apiRoutes } from '../routes';
import { openApiPath } from './openapi';
import { startTestApi, type TestApi } from '../testing';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/**
 * Every method+path Express actually serves, read from the router (the 405 catch-alls register every method,
 * and the HEAD refusals only HEAD; skip them).
 */
function servedRoutes(): string[] {
  const app = buildApi(api.deps) as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } };
  return app.router.stack
    .filter((layer) => layer.route && Object.keys(layer.route.methods).length === 1 && !layer.route.methods.head)
    .flatMap((layer) => Object.keys(layer.route!.methods).map((method) => `${method} ${openApiPath(layer.route!.path)}`));
}

describe('/openapi.json', () => {
  it('documents every route the app serves, with its security and responses', async () => {
    const res = await api.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    const served = servedRoutes();
    expect(served.length).toBe(apiRoutes.length);
    expect(served.filter((route) => !documented.includes(route))).toEqual([]);
    for (const ops of Object.values(res.body.paths as Record<string, Record<string, { responses: object; security: unknown[] }>>)) {
      for (const op of Object.values(ops)) {
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        expect(Array.isArray(op.security)).toBe(true);
      }
    }
  });

  it('describes request bodies with the zod schemas that validate them', async () => {
    const res = await api.http.get('/openapi.json');
    const withBodies = apiRoutes.filter((route) => route.body);
    for (const route of withBodies) {
      const op = res.body.paths[openApiPath(route.path)][route.method];
      expect(op.requestBody.content['application/json'].schema).toBeDefined();
    }
  });

  it("opens with the guide, whose webhook section lists every event type an endpoint can subscribe to", async () => {
    const res = await api.http.get('/openapi.json');
    const guide = res.body.info.description as string;
    const section = guide.slice(guide.indexOf('# Webhook verification'), guide.indexOf('# Send over SMTP'));
    expect(WEBHOOK_EVENT_TYPES.filter((type) => !section.includes(`\`${type}\``))).toEqual([]);
  });
});

describe('/openapi.json operations and errors', () => {
  it('names every operation once and lists each error status with the codes its route can answer', async () => {
    const res = await api.http.get('/openapi.json');
    const operations = Object.values(res.body.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>).flatMap(
      (ops) => Object.values(ops),
    );
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(apiRoutes.length);
    const getEmail = res.body.paths['/v1/emails/{id}'].get;
    expect(getEmail.responses['404'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual(['email_not_found']);
    expect(Object.keys(getEmail.responses['401'].headers)).toEqual(['X-Request-Id', 'WWW-Authenticate']);
    expect(res.body.components.schemas).toHaveProperty('EmailDetail');
  });
});
