import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { listenRaw, startTestApi, type TestApi } from '@mailer/api/testing';
import { setAccountPlan } from '@mailer/db';
import { freePort, insertReadyDomain, insertSender } from '@mailer/testing';
import { MailerClient } from './client';
import { API_ERROR_CODES } from './error-codes';
import { MailerApiError, type MailerErrorCode } from './errors';

/**
 * Retries, timeouts and errors without an answer (docs/api-decisions.md, "The SDK as a package"),
 * against the real API and real servers on loopback that refuse, reset, stall or answer 503.
 */
let api: TestApi;
let server: Awaited<ReturnType<typeof listenRaw>>;
let sendingKey: string;
let accountId: string;
const message = { from: 'hello@retries.test', to: ['ann@example.test'], subject: 'Hi', content: { plain: 'Hello.' } };

/** Every request a client sent, with the status it got (0: no answer). */
const seen: { method: string; url: string; key: string | undefined; status: number }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const entry = { method: init!.method!, url: String(input), key: (init!.headers as Record<string, string>)['Idempotency-Key'], status: 0 };
  seen.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  return response;
};
const client = (baseUrl: string, options: Partial<ConstructorParameters<typeof MailerClient>[0]> = {}) =>
  new MailerClient({ baseUrl, apiKey: sendingKey, fetch: recordingFetch, ...options });

/** A real HTTP server on loopback; `handle` answers each request. */
async function listen(handle: http.RequestListener) {
  const httpServer = http.createServer(handle);
  httpServer.listen(0, '127.0.0.1');
  await once(httpServer, 'listening');
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    close: () => {
      httpServer.closeAllConnections();
      return new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** In front of the API: answers the first `busy` requests 503 with `retryAfter`, then passes each on. */
async function busyProxy(busy: number, retryAfter: string) {
  let requests = 0;
  return listen(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (++requests <= busy) {
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': retryAfter });
      return void res.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'later' } }));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>;
    const answer = await fetch(`${server.url}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
}

beforeAll(async () => {
  api = await startTestApi();
  server = await listenRaw(api);
  const account = await api.createAccount();
  accountId = account.account.id;
  sendingKey = account.sending_key;
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, accountId, 'retries.test');
  await insertSender(api.deps.db, accountId, domain.id, 'hello@retries.test');
});
afterAll(async () => {
  await server.close();
  await api.close();
});
beforeEach(() => {
  seen.length = 0;
  api.clock.now = undefined;
});

describe('answers worth waiting for', () => {
  it("waits out the API's 429 Retry-After and sends again under the same Idempotency-Key", async () => {
    await setAccountPlan(api.deps.db, accountId, { perMinute: 1 });
    // The minute window's one recipient was used 57 s ago: the next send fits in about 3 s.
    api.clock.now = new Date(Date.now() - 57_000);
    expect((await api.http.post('/v1/emails').set('Authorization', `Bearer ${sendingKey}`).set('Idempotency-Key', 'earlier').send(message)).status).toBe(202);
    api.clock.now = undefined;

    const sent = await client(server.url).emails.send(message);
    expect(sent.status).toBe('queued');
    expect(seen.map((r) => r.status)).toEqual([429, 202]);
    expect(new Set(seen.map((r) => r.key)).size).toBe(1);
  }, 30_000);

  it('throws a 429 whose Retry-After is beyond maxRetryAfter at once', async () => {
    await setAccountPlan(api.deps.db, accountId, { perMinute: 1, perHour: 1 });
    const error = (await client(server.url, { maxRetryAfter: 5 }).emails.send(message).catch((e: unknown) => e)) as MailerApiError;
    expect(error).toBeInstanceOf(MailerApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(error.retryAfter).toBeGreaterThan(5);
    expect(seen).toHaveLength(1);
  });

  it('never retries 422 plan_limit_exceeded: the request can never fit', async () => {
    await setAccountPlan(api.deps.db, accountId, { perMinute: 1, perHour: 100 });
    const error = (await client(server.url).emails.send({ ...message, to: ['a@example.test', 'b@example.test'] }).catch((e: unknown) => e)) as MailerApiError;
    expect(error).toMatchObject({ status: 422, code: 'plan_limit_exceeded', retryAfter: null });
    expect(error.details).toEqual([{ path: 'plan.per_minute', message: expect.any(String) }]);
    expect(seen).toHaveLength(1);
  });

  it('retries 503 after its Retry-After, then gives up after maxRetries', async () => {
    await setAccountPlan(api.deps.db, accountId, { perMinute: 100, perHour: 100 });
    const twice = await busyProxy(2, '0');
    try {
      expect((await client(twice.url).emails.send(message)).status).toBe('queued');
      expect(seen.map((r) => r.status)).toEqual([503, 503, 202]);
      expect(new Set(seen.map((r) => r.key)).size).toBe(1);
    } finally {
      await twice.close();
    }
    seen.length = 0;
    const always = await busyProxy(Infinity, '0');
    try {
      await expect(client(always.url, { maxRetries: 1 }).emails.get('em_any')).rejects.toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 0 });
      expect(seen).toHaveLength(2);
    } finally {
      await always.close();
    }
  });
});

describe('no answer', () => {
  it('turns a refused connection into MailerApiError network_error, after retrying any request (nothing reached the API)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const error = (await client(closed, { maxRetries: 2 }).domains.create({ name: 'refused.test' }).catch((e: unknown) => e)) as MailerApiError;
    expect(error).toBeInstanceOf(MailerApiError);
    expect(error).toMatchObject({ status: null, code: 'network_error', requestId: null });
    expect(error.message).toContain('ECONNREFUSED');
    expect(seen).toHaveLength(3);
  }, 30_000);

  it('retries a connection reset only where repeating the request is safe', async () => {
    let connections = 0;
    const resetting = net.createServer((socket) => {
      connections++;
      socket.once('data', () => socket.resetAndDestroy());
    });
    resetting.listen(0, '127.0.0.1');
    await once(resetting, 'listening');
    const url = `http://127.0.0.1:${(resetting.address() as AddressInfo).port}`;
    try {
      // A POST without an Idempotency-Key may have been acted on: not sent again.
      await expect(client(url).domains.create({ name: 'reset.test' })).rejects.toMatchObject({ code: 'network_error' });
      expect(connections).toBe(1);
      // A read, and a send under its Idempotency-Key, are.
      await expect(client(url).emails.get('em_any')).rejects.toMatchObject({ code: 'network_error' });
      await expect(client(url).emails.send(message)).rejects.toMatchObject({ code: 'network_error' });
      expect(connections).toBe(7);
      expect(new Set(seen.filter((r) => r.method === 'POST' && r.key).map((r) => r.key)).size).toBe(1);
    } finally {
      resetting.close();
    }
  }, 30_000);

  it('times out against a server that does not answer, without retrying, and honours an AbortSignal', async () => {
    let requests = 0;
    const silent = await listen(() => void requests++);
    try {
      const error = (await client(silent.url, { timeout: 300 }).emails.send(message).catch((e: unknown) => e)) as MailerApiError;
      expect(error).toBeInstanceOf(MailerApiError);
      expect(error).toMatchObject({ status: null, code: 'timeout' });
      expect(requests).toBe(1);

      const controller = new AbortController();
      const call = client(silent.url).call('getEmail', { path: { id: 'em_any' }, signal: controller.signal });
      controller.abort(new Error('the caller gave up'));
      await expect(call).rejects.toThrow('the caller gave up');
    } finally {
      await silent.close();
    }
  });
});

describe('error codes', () => {
  it('are typed from the OpenAPI enums', () => {
    expect(API_ERROR_CODES).toEqual(expect.arrayContaining(['plan_limit_exceeded', 'rate_limit_exceeded', 'invalid_cursor', 'validation_error']));
    const known: MailerErrorCode[] = ['network_error', 'timeout', 'http_502', 'email_not_found'];
    // @ts-expect-error not a code the API or the client answers
    const unknown: MailerErrorCode = 'no_such_code';
    expect([...known, unknown]).toHaveLength(5);
  });
});
