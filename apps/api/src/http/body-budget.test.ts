import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { sendingAccount, type SendingAccount } from '../routes/emails/sending-account.fixture';
import { listenRaw, readResponse, startTestApi, type RawResponse, type TestApi } from '../testing';

const MIB = 1024 * 1024;

let api: TestApi;
let acme: SendingAccount;
let raw: Awaited<ReturnType<typeof listenRaw>>;
beforeAll(async () => {
  api = await startTestApi({ MAX_BODY_BYTES_IN_FLIGHT: String(16 * MIB) });
  acme = await sendingAccount(api);
  raw = await listenRaw(api);
});
afterAll(async () => {
  await raw.close();
  await api.close();
});

const post = (headers: Record<string, string | number> = {}) =>
  raw.open('POST', '/v1/emails', { Authorization: acme.auth, 'Idempotency-Key': `k-${Math.random()}`, 'Content-Type': 'application/json', ...headers });

/** An 8 MiB body: a 6 MiB attachment, base64. */
const largeBody = () =>
  Buffer.from(JSON.stringify(acme.message({ attachments: [{ filename: 'a.bin', content_base64: randomBytes(6 * MIB).toString('base64') }] })));

/**
 * The answer to a request that declares `length` body bytes and sends none, once the API
 * refuses it; a probe the API admitted (the body in flight was not admitted yet) is dropped.
 */
async function refusedWithoutBody(headers: Record<string, string | number>): Promise<RawResponse> {
  for (let tries = 0; tries < 50; tries++) {
    const probe = post(headers);
    probe.flushHeaders();
    const answer = await Promise.race([readResponse(probe), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100))]);
    if (answer) return answer;
    probe.on('error', () => {}).destroy();
  }
  throw new Error('the API never refused the probe');
}

describe('MAX_BODY_BYTES_IN_FLIGHT', () => {
  it('refuses a body that does not fit beside the bodies in flight with 503 and Retry-After, before reading it', async () => {
    const body = largeBody();
    const first: http.ClientRequest = post({ 'Content-Length': body.length });
    first.write(body.subarray(0, 1024));

    const refused = await refusedWithoutBody({ 'Content-Length': 9 * MIB });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text).error.code).toBe('service_unavailable');
    // A body of unknown size counts as the 16 MiB body limit.
    expect((await refusedWithoutBody({ 'Transfer-Encoding': 'chunked' })).status).toBe(503);

    first.end(body.subarray(1024));
    expect((await readResponse(first)).status).toBe(202);
  });

  it('admits bodies again once the answers are sent, chunked ones included', async () => {
    const body = largeBody();
    const sized = post({ 'Content-Length': body.length });
    sized.end(body);
    expect((await readResponse(sized)).status).toBe(202);
    const chunked = post({ 'Transfer-Encoding': 'chunked' });
    chunked.end(body);
    expect((await readResponse(chunked)).status).toBe(202);
  });
});
