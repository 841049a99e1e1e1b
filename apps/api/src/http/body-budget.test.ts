import { randomBytes } from 'node:crypto';
import { sendingAccount, type SendingAccount } from '../testing/sending-account';
import { listenRaw, readResponse, startTestApi, type TestApi } from '../testing';

const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

describe('MAX_BODY_BYTES_IN_FLIGHT', () => {
  it('refuses a body that does not fit beside the bodies in flight with 503 and Retry-After, before reading it', async () => {
    const body = largeBody();
    // Two 8 MiB bodies, neither sent yet: whichever is admitted first, the other does not fit under 16 MiB.
    const both = [post({ 'Content-Length': body.length }), post({ 'Content-Length': body.length })];
    for (const req of both) req.flushHeaders();
    const answers = both.map(readResponse);
    const [refusedIndex, refused] = await Promise.race(answers.map(async (answer, index) => [index, await answer] as const));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text).error.code).toBe('service_unavailable');
    both[refusedIndex]!.on('error', () => {}).destroy();

    // A body of unknown size holds what has arrived: nothing yet, so it is not refused.
    const chunked = post({ 'Transfer-Encoding': 'chunked' });
    chunked.flushHeaders();
    const chunkedAnswer = readResponse(chunked);
    expect(await Promise.race([chunkedAnswer, sleep(500).then(() => 'pending')])).toBe('pending');
    chunked.on('error', () => {}).destroy();

    both[1 - refusedIndex]!.end(body);
    expect((await answers[1 - refusedIndex])?.status).toBe(202);
  });

  it('refuses a chunked body part-way, with 503 and Retry-After, once it grows past what is left', async () => {
    const body = largeBody();
    const sized = post({ 'Content-Length': body.length });
    sized.flushHeaders();
    // Admitted first: it holds its declared size once authenticated.
    while (api.deps.bodyBudget.held < body.length) await sleep(20);
    const chunked = post({ 'Transfer-Encoding': 'chunked' }).on('error', () => {});
    chunked.write(body);
    const refused = await readResponse(chunked);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    sized.end(body);
    expect((await readResponse(sized)).status).toBe(202);
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
