import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: { perMinute: 10_000, perHour: 10_000, perDay: 10_000, per30Days: 10_000, maxActive: 10_000 } });
});
afterAll(() => api.close());

const b64 = (text: string) => Buffer.from(text).toString('base64');

async function expectInvalid(body: unknown, details: { path: string; message: string | RegExp }[]) {
  const res = await acme.send(body);
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details).toHaveLength(details.length);
  for (const [i, detail] of details.entries()) {
    expect(res.body.error.details[i].path).toBe(detail.path);
    expect(res.body.error.details[i].message).toMatch(detail.message);
  }
}

describe('POST /v1/emails validation (422 validation_error, one detail per problem)', () => {
  it('lists every problem with a path in the request’s own terms', async () => {
    await expectInvalid(
      {
        from: 'not-an-address',
        to: ['ann@example.test', 'bad address'],
        subject: '',
        content: { plain: ' ', html: '\n', extra: true },
        attachments: [{ filename: 'a/b.pdf', content_base64: 'aGVsbG8' }],
        unknown_member: 1,
      },
      [
        { path: 'from', message: 'not a valid email address' },
        { path: 'to[1]', message: 'not a valid email address' },
        { path: 'subject', message: /empty/ },
        { path: 'content.extra', message: 'unknown member' },
        { path: 'content', message: /non-whitespace/ },
        { path: 'attachments[0].filename', message: /\// },
        { path: 'attachments[0].content_base64', message: /strict base64/ },
        { path: 'unknown_member', message: 'unknown member' },
      ],
    );
  });

  it('requires from, to, subject and content', async () => {
    await expectInvalid({}, [
      { path: 'from', message: 'is required' },
      { path: 'to', message: 'is required' },
      { path: 'subject', message: 'is required' },
      { path: 'content', message: 'is required' },
    ]);
    await expectInvalid(acme.message({ to: [] }), [{ path: 'to', message: /at least one/ }]);
  });

  it('refuses a body that is not an object, and unknown members inside attachments', async () => {
    await expectInvalid([], [{ path: '(body)', message: /object/ }]);
    await expectInvalid(acme.message({ attachments: [{ filename: 'a.txt', content_base64: b64('x'), inline: true }] }), [
      { path: 'attachments[0].inline', message: 'unknown member' },
    ]);
  });

  it('accepts only the transactional type and names the allowed set', async () => {
    await expectInvalid(acme.message({ type: 'marketing' }), [{ path: 'type', message: 'must be one of: transactional' }]);
    expect((await acme.send(acme.message({ type: 'transactional' }))).status).toBe(202);
  });

  it('checks from: plain, display name, quoted display name, header injection', async () => {
    expect((await acme.send(acme.message({ from: 'Acme Billing <hello@acme.test>' }))).status).toBe(202);
    expect((await acme.send(acme.message({ from: '"Acme, Billing" <HELLO@ACME.TEST>' }))).status).toBe(202);
    await expectInvalid(acme.message({ from: 'Evil\r\nBcc: x@evil.test <hello@acme.test>' }), [{ path: 'from', message: /header injection/ }]);
    await expectInvalid(acme.message({ from: 'Name <not an address>' }), [{ path: 'from', message: /not a valid email address/ }]);
  });

  it('checks the subject: trimmed length, control characters, CR/LF', async () => {
    await expectInvalid(acme.message({ subject: 'x'.repeat(999) }), [{ path: 'subject', message: /at most 998 characters/ }]);
    await expectInvalid(acme.message({ subject: 'Hi\r\nBcc: x@evil.test' }), [{ path: 'subject', message: /CR, LF or NUL/ }]);
    await expectInvalid(acme.message({ subject: 'a\u0007b' }), [{ path: 'subject', message: /control characters/ }]);
    expect((await acme.send(acme.message({ subject: `  ${'é'.repeat(998)}  ` }))).status).toBe(202);
  });

  it('checks content sizes in UTF-8 bytes', async () => {
    await expectInvalid(acme.message({ content: { plain: 'é'.repeat(128 * 1024 + 1) } }), [
      { path: 'content.plain', message: /at most 262144 bytes/ },
    ]);
    await expectInvalid(acme.message({ content: { html: 'x'.repeat(1024 * 1024 + 1) } }), [{ path: 'content.html', message: /at most 1048576 bytes/ }]);
    await expectInvalid(acme.message({ content: {} }), [{ path: 'content', message: /non-whitespace/ }]);
    await expectInvalid(acme.message({ content: { plain: 1 } }), [{ path: 'content.plain', message: /string/ }]);
    expect((await acme.send(acme.message({ content: { plain: 'a'.repeat(256 * 1024), html: '<p>hi</p>' } }))).status).toBe(202);
  });

  it('checks recipients: RFC 5321 mailboxes, IDN to A-labels, at most 50 unique across to/cc/bcc', async () => {
    await expectInvalid(acme.message({ to: ['ann@example.test'], cc: ['Bob <bob@example.test'], bcc: ['x@localhost', 7] }), [
      { path: 'cc[0]', message: 'not a valid email address' },
      { path: 'bcc[0]', message: 'not a valid email address' },
      { path: 'bcc[1]', message: /string/ },
    ]);
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}@example.test`);
    const ok = await acme.send(acme.message({ to: fifty.slice(0, 20), cc: [...fifty.slice(20, 40), 'R0@EXAMPLE.test'], bcc: fifty.slice(40) }));
    expect(ok.status).toBe(202);
    await expectInvalid(acme.message({ to: fifty.slice(0, 30), bcc: [...fifty.slice(30), 'one-more@example.test'] }), [
      { path: 'bcc[20]', message: /at most 50 unique recipients/ },
    ]);
  });

  it('refuses addresses the SMTP layer would refuse or rewrite, and keeps the quoted ones it sends as given', async () => {
    await expectInvalid(acme.message({ to: ['" ann"@example.test'], bcc: ['ok@example.test', '"x>y"@example.test'] }), [
      { path: 'to[0]', message: 'not a valid email address' },
      { path: 'bcc[1]', message: 'not a valid email address' },
    ]);
    expect((await acme.send(acme.message({ to: ['"john doe"@example.test'], bcc: ['"a,b"@example.test'] }))).status).toBe(202);
  });

  it('checks attachments: count, filename, strict base64, sizes, content type, content id', async () => {
    const file = (extra: Record<string, unknown> = {}) => ({ filename: 'a.txt', content_base64: b64('hello'), ...extra });
    await expectInvalid(acme.message({ attachments: Array.from({ length: 21 }, () => file()) }), [{ path: 'attachments', message: /at most 20/ }]);
    await expectInvalid(
      acme.message({
        attachments: [
          file({ filename: '' }),
          file({ filename: 'x'.repeat(256) }),
          file({ filename: 'evil\r\n.txt' }),
          file({ content_base64: 'aGVs bG8=' }),
          file({ content_base64: 'aGVsbG8=\n' }),
          file({ content_base64: 'aGVsbG9=' }),
          file({ content_type: 'pdf' }),
          file({ content_id: '<logo>' }),
          file({ content_id: 'a\r\nb' }),
        ],
      }),
      [
        { path: 'attachments[0].filename', message: /empty/ },
        { path: 'attachments[1].filename', message: /at most 255/ },
        { path: 'attachments[2].filename', message: /header injection/ },
        { path: 'attachments[3].content_base64', message: /strict base64/ },
        { path: 'attachments[4].content_base64', message: /strict base64/ },
        { path: 'attachments[5].content_base64', message: /strict base64/ },
        { path: 'attachments[6].content_type', message: /type\/subtype/ },
        { path: 'attachments[7].content_id', message: /angle brackets/ },
        { path: 'attachments[8].content_id', message: /header injection/ },
      ],
    );
  });

  it('limits each attachment to 8 MiB and all to 10 MiB decoded', async () => {
    const mib = (n: number) => Buffer.alloc(n * 1024 * 1024, 1).toString('base64');
    await expectInvalid(acme.message({ attachments: [{ filename: 'big.bin', content_base64: Buffer.alloc(8 * 1024 * 1024 + 1).toString('base64') }] }), [
      { path: 'attachments[0].content_base64', message: /at most 8 MiB/ },
    ]);
    await expectInvalid(
      acme.message({ attachments: [{ filename: 'a.bin', content_base64: mib(6) }, { filename: 'b.bin', content_base64: mib(5) }] }),
      [{ path: 'attachments', message: /at most 10 MiB/ }],
    );
  });

  it('answers 415 for a non-JSON body and 400 invalid_json for unparseable JSON', async () => {
    const notJson = await api.http.post('/v1/emails').set('Authorization', acme.auth).set('Idempotency-Key', 'k-415').set('Content-Type', 'text/plain').send('hello');
    expect(notJson.status).toBe(415);
    expect(notJson.body.error.code).toBe('unsupported_media_type');
    const broken = await api.http.post('/v1/emails').set('Authorization', acme.auth).set('Idempotency-Key', 'k-400').set('Content-Type', 'application/json').send('{"from":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
  });
});

describe('POST /v1/emails before the body', () => {
  it('answers 401 unauthorized without a valid sending key', async () => {
    const none = await api.http.post('/v1/emails').set('Idempotency-Key', 'k').send(acme.message());
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const unknown = await api.http.post('/v1/emails').set('Authorization', `Bearer svc_live_${'x'.repeat(40)}`).set('Idempotency-Key', 'k').send(acme.message());
    expect(unknown.status).toBe(401);
  });

  it('answers 403 wrong_key_type for a management key on every email route', async () => {
    const auth = `Bearer ${acme.management_key}`;
    for (const res of [
      await api.http.post('/v1/emails').set('Authorization', auth).set('Idempotency-Key', 'k').send(acme.message()),
      await api.http.get('/v1/emails').set('Authorization', auth),
      await api.http.get('/v1/emails/em_0000000000000000000000').set('Authorization', auth),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('wrong_key_type');
    }
  });

  it('answers 400 idempotency_key_required without a key of 1..255 characters, before judging the body', async () => {
    const missing = await api.http.post('/v1/emails').set('Authorization', acme.auth).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('idempotency_key_required');
    const long = await acme.send(acme.message(), 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('idempotency_key_required');
    expect((await acme.send(acme.message(), 'k'.repeat(255))).status).toBe(202);
  });
});
