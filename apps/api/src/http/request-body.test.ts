import { brotliCompressSync, gzipSync } from 'node:zlib';
import { sendingAccount, type SendingAccount } from '../testing/sending-account';
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

describe('malformed UTF-8: 400 invalid_json, never replaced with U+FFFD', () => {
  // A stray byte, an overlong encoding of "/", and an encoded surrogate (UTF-8 has none).
  const bodyWithSubjectBytes = (bytes: number[]) => {
    const [before, after] = JSON.stringify(acme.message({ subject: 'Hi X' })).split('X') as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
  };

  it.each([[[0xff]], [[0xc0, 0xaf]], [[0xed, 0xa0, 0x80]]])('refuses the bytes %j in a subject', async (bytes) => {
    const res = await sendRaw(bodyWithSubjectBytes(bytes));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_json', message: 'The request body is not valid UTF-8.' });
  });

  it('refuses them after a Content-Encoding is decoded too', async () => {
    const res = await sendRaw(gzipSync(bodyWithSubjectBytes([0xed, 0xa0, 0x80])), { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('keeps well-formed multi-byte characters', async () => {
    expect((await sendRaw(bodyWithSubjectBytes([...Buffer.from('é€😀')]))).status).toBe(202);
  });
});

describe('bounded error bodies', () => {
  it('answers a body of 1,000,000 unknown members with a small 422 listing 100 of them and the count of the rest', async () => {
    const members = Array.from({ length: 1_000_000 }, (_, i) => `"m${i}":0`).join(',');
    const res = await sendRaw(`{${members}}`);
    expect(res.status).toBe(422);
    expect(Buffer.byteLength(res.text)).toBeLessThan(64 * 1024);
    const details = res.body.error.details!;
    expect(details).toHaveLength(101);
    // The members the schema itself requires come first, then the unknown members; whether `subject` and `content`
    // are missing is judged after them (they are required only without a `template`), past the first 100.
    expect(details.slice(0, 3).map((d) => d.path)).toEqual(['from', 'to', 'm0']);
    expect(details[2]).toEqual({ path: 'm0', message: 'unknown member' });
    expect(details[100]).toEqual({ path: '(body)', message: '999,904 more problems are not listed' });
  });

  it('truncates long paths and messages so that the body stays under 64 KiB', async () => {
    const body: Record<string, unknown> = acme.message();
    for (let i = 0; i < 150; i++) body[`${i}${'\u0001'.repeat(5_000)}`] = 0;
    const res = await sendRaw(JSON.stringify(body));
    expect(res.status).toBe(422);
    expect(Buffer.byteLength(res.text)).toBeLessThan(64 * 1024);
    const details = res.body.error.details!;
    expect(details).toHaveLength(101);
    expect(details[0]?.path).toMatch(/^0\u0001+…$/);
    expect(details[100]).toEqual({ path: '(body)', message: '50 more problems are not listed' });
  });
});

const LONE = '\ud800';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const attachment = (overrides: Record<string, unknown> = {}) => ({ filename: 'a.txt', content_base64: b64('x'), ...overrides });

describe('well-formed Unicode: a lone surrogate is a 422 at its path, never a 500 or U+FFFD', () => {
  // JSON.stringify writes a lone surrogate as the escape `\ud800`, which JSON.parse turns back into one.
  const cases: [string, Record<string, unknown>][] = [
    ['subject', { subject: `Hi ${LONE}` }],
    ['content.plain', { content: { plain: `x${LONE}y` } }],
    ['content.html', { content: { html: `<p>${LONE}</p>` } }],
    ['from', { from: `Acme ${LONE} <hello@acme.test>` }],
    ['to[0]', { to: [`a${LONE}@example.test`] }],
    ['cc[1]', { cc: ['b@example.test', `${LONE}@example.test`] }],
    ['attachments[0].filename', { attachments: [attachment({ filename: `${LONE}.txt` })] }],
    ['attachments[0].content_type', { attachments: [attachment({ content_type: `text/${LONE}` })] }],
    ['attachments[0].content_id', { attachments: [attachment({ content_id: `a${LONE}b` })] }],
    ['subject', { subject: `trailing \udc00` }],
  ];

  it.each(cases)('at %s', async (path, overrides) => {
    const res = await acme.send(acme.message(overrides));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([{ path, message: expect.stringMatching(/unpaired surrogate/) }]);
  });

  it('in a member name', async () => {
    const res = await acme.send({ ...acme.message(), [`x${LONE}`]: 1 });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: 'x\ufffd', message: expect.stringMatching(/member name .*unpaired surrogate/) }]);
  });

  it('keeps surrogate pairs, escaped or not', async () => {
    expect((await sendRaw(JSON.stringify(acme.message({ subject: 'Party \ud83c\udf89' })))).status).toBe(202);
    expect((await sendRaw(JSON.stringify(acme.message()).replace('"Your receipt"', '"Receipt \\ud83c\\udf89"'))).status).toBe(202);
  });

  it('on the domain and sender routes too', async () => {
    const management = `Bearer ${acme.management_key}`;
    const domain = await api.http.post('/v1/domains').set('Authorization', management).send({ name: 'surrogate.test', external_id: `e${LONE}` });
    expect(domain.status).toBe(422);
    expect(domain.body.error.details).toEqual([{ path: 'external_id', message: expect.stringMatching(/unpaired surrogate/) }]);
    const sender = await api.http
      .post(`/v1/domains/${acme.domain.id}/senders`)
      .set('Authorization', management)
      .send({ email: 'ops@acme.test', display_name: `Ops ${LONE}` });
    expect(sender.status).toBe(422);
    expect(sender.body.error.details).toEqual([{ path: 'display_name', message: expect.stringMatching(/unpaired surrogate/) }]);
  });
});
