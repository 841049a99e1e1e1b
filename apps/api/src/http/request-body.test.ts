import { brotliCompressSync, gzipSync } from 'node:zlib';
import { sendingAccount, type SendingAccount } from '../routes/emails/sending-account.fixture';
import { listenRaw, readResponse, startTestApi, type TestApi } from '../testing';

let api: TestApi;
let acme: SendingAccount;
let raw: Awaited<ReturnType<typeof listenRaw>>;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 10_000, perHour: 10_000, perDay: 10_000, per30Days: 10_000, maxActive: 10_000 } });
  raw = await listenRaw(api);
});
afterAll(async () => {
  await raw.close();
  await api.close();
});

/** POST /v1/emails with `body` as its exact bytes, and extra headers. */
async function sendRaw(body: string | Buffer, headers: Record<string, string> = {}) {
  const req = raw.open('POST', '/v1/emails', { Authorization: acme.auth, 'Idempotency-Key': `k-${Math.random()}`, 'Content-Type': 'application/json', ...headers });
  req.end(body);
  const res = await readResponse(req);
  return { ...res, body: JSON.parse(res.text) as { error: { code: string; details?: { path: string; message: string }[] } } };
}

describe('Content-Encoding', () => {
  it('decodes a gzip or br body', async () => {
    expect((await sendRaw(gzipSync(JSON.stringify(acme.message())), { 'Content-Encoding': 'gzip' })).status).toBe(202);
    expect((await sendRaw(brotliCompressSync(JSON.stringify(acme.message())), { 'Content-Encoding': 'br' })).status).toBe(202);
  });

  it.each(['gzip', 'deflate', 'br'])('answers 400 invalid_json when a %s body cannot be decoded', async (encoding) => {
    const res = await sendRaw(Buffer.from('this is not compressed at all'), { 'Content-Encoding': encoding });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(api.logLines().filter((line) => line.level === 'error')).toEqual([]);
  });

  it('answers 400 invalid_json when a gzip body is cut short', async () => {
    const res = await sendRaw(gzipSync(JSON.stringify(acme.message())).subarray(0, 20), { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('answers 415 unsupported_media_type for an encoding it does not support', async () => {
    const res = await sendRaw(JSON.stringify(acme.message()), { 'Content-Encoding': 'compress' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });
});
