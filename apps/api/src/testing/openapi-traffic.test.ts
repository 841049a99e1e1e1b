import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { checkedAgainstDocument, exchangeViolation, type Exchange } from './openapi-traffic';

/** The validator every API test's traffic goes through must fail on what a validating proxy would report. */
const error = (code: string) => ({ error: { code, message: 'm' } });
const exchange = (overrides: Partial<Exchange>): Exchange => ({
  method: 'GET',
  url: '/v1/account',
  headers: { authorization: 'Bearer svc_live_x' },
  body: undefined,
  status: 200,
  responseHeaders: { 'x-request-id': 'r' },
  responseBody: {
    id: 'acc_1',
    name: 'A',
    plan: { per_minute: 1, per_hour: 1, per_day: 1, per_30_days: 1, max_active: 1, max_domains: 1, max_webhook_endpoints: 1, max_templates: 1 },
    usage: { minute: 0, hour: 0, day: 0, thirty_days: 0, active: 0 },
    sending: { status: 'enabled', reason: null, since: '2026-11-22T10:00:00.000Z', bounce_rate: 0, complaint_rate: 0 },
    streams: {
      transactional: { sending: { status: 'enabled', reason: null, since: '2026-11-22T10:00:00.000Z', bounce_rate: 0, complaint_rate: 0 } },
      broadcast: { sending: { status: 'enabled', reason: null, since: '2026-11-22T10:00:00.000Z', bounce_rate: 0, complaint_rate: 0 } },
    },
    test_mode: { per_minute: 100, minute: 0 },
  },
  responseText: '{}',
  ...overrides,
});

describe('exchangeViolation', () => {
  it('passes a conforming exchange', () => {
    expect(exchangeViolation(exchange({}))).toBeUndefined();
    expect(exchangeViolation(exchange({ status: 401, responseHeaders: { 'x-request-id': 'r', 'www-authenticate': 'Bearer' }, responseBody: error('unauthorized'), headers: {} }))).toBeUndefined();
  });

  it('reports an undeclared status, a code outside the enum, a body off its schema and a missing required header', () => {
    expect(exchangeViolation(exchange({ status: 418 }))).toMatch(/getAccount.*status 418 is not declared/);
    expect(exchangeViolation(exchange({ status: 401, responseHeaders: { 'x-request-id': 'r', 'www-authenticate': 'Bearer' }, responseBody: error('invalid_cursor') }))).toMatch(/body: data\/error\/code must be equal to one of the allowed values/);
    expect(exchangeViolation(exchange({ responseBody: { id: 'acc_1' } }))).toMatch(/body: .*must have required property 'plan'/);
    expect(exchangeViolation(exchange({ status: 401, responseBody: error('unauthorized') }))).toMatch(/lacks the header WWW-Authenticate/);
  });

  it('reports a success answered to a request the document calls invalid', () => {
    const canceled = { method: 'POST', url: '/v1/emails/em_1/cancel', status: 200 };
    expect(exchangeViolation(exchange({ ...canceled, headers: {} }))).toMatch(/answered 200 to a request the document calls invalid \(no bearer credentials/);
    expect(exchangeViolation(exchange({ ...canceled, headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: { reason: 'x' } }))).toMatch(
      /calls invalid \(body: .*additional properties/,
    );
    expect(exchangeViolation(exchange({ url: '/v1/emails?limit=0', status: 200, responseBody: { data: [], next_cursor: null } }))).toMatch(/query parameter limit=0/);
    expect(exchangeViolation(exchange({ url: '/v1/emails?colour=red', status: 200, responseBody: { data: [], next_cursor: null } }))).toMatch(/colour is not documented/);
    expect(exchangeViolation(exchange({ method: 'POST', url: '/v1/emails', status: 202, responseBody: { id: 'em_1', status: 'queued', created_at: '2026-11-22T10:00:00.000Z' } }))).toMatch(
      /Idempotency-Key is missing/,
    );
    // Refused, the same requests conform.
    expect(exchangeViolation(exchange({ url: '/v1/emails?limit=0', status: 400, responseBody: error('invalid_query') }))).toBeUndefined();
  });

  it('accepts Basic or Bearer where the document declares both, and nothing else', () => {
    const metrics = { url: '/metrics', responseHeaders: { 'x-request-id': 'r' }, responseBody: {}, responseText: 'up 1' };
    expect(exchangeViolation(exchange({ ...metrics, headers: { authorization: 'Basic b3A6dA==' } }))).toBeUndefined();
    expect(exchangeViolation(exchange({ ...metrics, headers: { authorization: 'Digest x' } }))).toMatch(/no bearer or basic credentials/);
  });

  it('lets an operation the document does not list be answered only 404 not_found or 405', () => {
    expect(exchangeViolation(exchange({ url: '/v2/nothing', status: 404, responseBody: error('not_found') }))).toBeUndefined();
    expect(exchangeViolation(exchange({ method: 'PUT', url: '/v1/account', status: 405, responseBody: error('method_not_allowed') }))).toBeUndefined();
    expect(exchangeViolation(exchange({ method: 'HEAD', url: '/healthz', status: 200, responseBody: {} }))).toMatch(/HEAD \/healthz: not in the document, yet answered 200/);
  });
});

describe('checkedAgainstDocument', () => {
  it('fails the await of a request whose answer breaks the document, over a real server', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'r' });
      res.end(JSON.stringify({ status: 'fine' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const agent = checkedAgainstDocument(request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      await expect(agent.get('/healthz')).rejects.toThrow(/OpenAPI violation: getHealth, GET \/healthz → 200: body: /);
      await expect(agent.get('/v1/account').set('Authorization', 'Bearer k')).rejects.toThrow(/getAccount.*must have required property 'id'/);
      await expect(agent.post('/v1/emails/em_1/cancel').set('Authorization', 'Bearer k').send({ please: true })).rejects.toThrow(/answered 200 to a request the document calls invalid/);
    } finally {
      server.close();
    }
  });
});
