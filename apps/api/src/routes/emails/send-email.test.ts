import { addSuppression } from '@mailer/db';
import { deliverMessageJobId } from '@mailer/queue';
import { insertSender } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../../testing/sending-account';

let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: GENEROUS_LIMITS });
});
afterAll(() => api.close());

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

describe('POST /v1/emails acceptance', () => {
  it('stores the message durably before answering 202 {id, status, created_at}', async () => {
    const logo = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0, 1, 2]);
    const res = await acme.send(
      acme.message({
        to: ['Ann@Example.TEST'],
        cc: ['ann@example.test', 'bob@example.test'],
        bcc: ['bob@example.test', 'carol@hidden.test'],
        content: { plain: 'Thanks!', html: '<p>Thanks! <img src="cid:logo"></p>' },
        attachments: [
          { filename: 'receipt.pdf', content_base64: b64('%PDF-1.4 receipt') },
          { filename: 'logo.png', content_base64: b64(logo), content_id: 'logo' },
          { filename: 'data', content_base64: b64('raw'), content_type: 'Text/CSV' },
        ],
      }),
    );
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(res.body.id).toMatch(/^em_[0-9A-Za-z]{22}$/);
    expect(res.body.status).toBe('queued');
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id: string = res.body.id;
    const createdAt = new Date(res.body.created_at);

    const [email] = await api.deps.db`
      select account_id as "accountId", sender_id as "senderId", domain_id as "domainId", status, from_email as "fromEmail",
             from_name as "fromName", subject, text_body as "textBody", html_body as "htmlBody",
             message_id_header as "messageIdHeader", created_at as "createdAt", "to", cc, bcc_count as "bccCount"
      from emails where id = ${id}`;
    expect(email).toMatchObject({
      accountId: acme.accountId,
      senderId: acme.sender.id,
      domainId: acme.domain.id,
      status: 'queued',
      fromEmail: 'hello@acme.test',
      fromName: 'Acme',
      subject: 'Your receipt',
      textBody: 'Thanks!',
      htmlBody: '<p>Thanks! <img src="cid:logo"></p>',
      messageIdHeader: `<${id}@acme.test>`,
      createdAt,
    });
    expect(email!.to).toEqual(['Ann@example.test']);
    expect(email!.cc).toEqual(['bob@example.test']);
    expect(email!.bccCount).toBe(1);

    const rows = await api.deps.db`
      select recipient, recipient_domain as "recipientDomain", kind, status, next_attempt_at as "nextAttemptAt" from deliveries where email_id = ${id}`;
    expect(rows.map((d) => [d.recipient, d.recipientDomain, d.kind, d.status]).sort()).toEqual(
      [
        ['Ann@example.test', 'example.test', 'to', 'queued'],
        ['bob@example.test', 'example.test', 'cc', 'queued'],
        ['carol@hidden.test', 'hidden.test', 'bcc', 'queued'],
      ].sort(),
    );
    for (const row of rows) expect(row.nextAttemptAt).toEqual(createdAt);

    const files = await api.deps.db`
      select position, filename, content_type as "contentType", content_id as "contentId", size, content from attachments where email_id = ${id}`;
    expect(files.sort((a, b) => a.position - b.position).map((f) => [f.filename, f.contentType, f.contentId, f.size])).toEqual([
      ['receipt.pdf', 'application/pdf', null, 16],
      ['logo.png', 'image/png', 'logo', logo.length],
      ['data', 'text/csv', null, 3],
    ]);
    expect(files.find((f) => f.filename === 'logo.png')!.content).toEqual(logo);

    expect(await api.deps.db`select type, at from events where email_id = ${id}`).toEqual([
      { type: 'queued', at: createdAt },
    ]);
    expect(await api.deps.db`select recipients from recipient_usage where email_id = ${id}`).toMatchObject([{ recipients: 3 }]);
    const [key] = await api.deps.db`select response, expires_at as "expiresAt" from idempotency_keys where email_id = ${id}`;
    expect(key!.response).toEqual(res.body);
    expect(key!.expiresAt.getTime() - createdAt.getTime()).toBe(24 * 3600 * 1000);

    const job = await api.deps.deliveryQueue.queue.getJob(deliverMessageJobId(id, createdAt));
    expect(job?.data).toEqual({ emailIds: [id], accountId: acme.accountId });
  });

  it('stores the body lz4-compressed', async () => {
    const plain = 'Your parcel is on its way and should arrive within two days.\n'.repeat(100);
    const res = await acme.send(acme.message({ content: { plain, html: `<p>${plain}</p>` } }));
    expect(res.status).toBe(202);
    const rows = await api.deps.db`
      select pg_column_compression(text_body) as text, pg_column_compression(html_body) as html from emails where id = ${res.body.id}`;
    expect(rows).toEqual([{ text: 'lz4', html: 'lz4' }]);
  });

  it('keeps each message’s own bodies when concurrent requests are written together', async () => {
    const contents = [
      { plain: 'first\nwith a \\ backslash and a \'quote\'', html: '<p>first</p>' },
      { plain: 'second only' },
      { html: '<p>third {"not","an","array"}</p>' },
      { plain: 'fourth ✉️\r\n', html: '' },
    ];
    const answers = await Promise.all(contents.map((content) => acme.send(acme.message({ content }))));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    const stored = await Promise.all(
      answers.map(async (a) => (await api.deps.db`select text_body as text, html_body as html from emails where id = ${a.body.id}`)[0]),
    );
    // A part without non-whitespace text is left out (bodyParts).
    expect(stored).toEqual(contents.map((c) => ({ text: c.plain || null, html: c.html || null })));
  });

  it('converts IDN recipient domains to A-labels', async () => {
    const res = await acme.send(acme.message({ to: ['zoe@Bücher.DE'] }));
    expect(res.status).toBe(202);
    const [row] = await api.deps.db`select recipient, recipient_domain as "recipientDomain" from deliveries where email_id = ${res.body.id}`;
    expect(row).toMatchObject({ recipient: 'zoe@xn--bcher-kva.de', recipientDomain: 'xn--bcher-kva.de' });
    expect((await acme.get(`/v1/emails/${res.body.id}`)).body.to).toEqual(['zoe@xn--bcher-kva.de']);
  });

  it('uses the request’s display name, else the sender’s, else none', async () => {
    const from = async (fromField: string) => {
      const res = await acme.send(acme.message({ from: fromField }));
      expect(res.status).toBe(202);
      return (await acme.get(`/v1/emails/${res.body.id}`)).body.from;
    };
    expect(await from('Billing Team <hello@acme.test>')).toBe('Billing Team <hello@acme.test>');
    expect(await from('hello@acme.test')).toBe('Acme <hello@acme.test>');
    expect(await from('"Doe, Jane" <hello@acme.test>')).toBe('"Doe, Jane" <hello@acme.test>');
    const plain = await insertSender(api.deps.db, acme.accountId, acme.domain.id, 'plain@acme.test');
    expect(await from(plain.email)).toBe('plain@acme.test');
  });

  it('takes display names in to, cc and reply_to, keeps them for the headers, and applies its rules to the address', async () => {
    await addSuppression(api.deps.db, acme.accountId, { email: 'gone@example.test', emailKey: 'gone@example.test', reason: 'manual', stream: null, at: new Date() });
    const res = await acme.send(
      acme.message({ to: ['Ann Example <ann@example.test>', '"Gone, Long" <Gone@Example.test>'], cc: ['Cy <cy@example.test>'], reply_to: 'Help Desk <help@acme.test>' }),
    );
    expect(res.status).toBe(202);
    const detail = (await acme.get(`/v1/emails/${res.body.id}`)).body;
    expect(detail).toMatchObject({ to: ['ann@example.test', 'Gone@example.test'], cc: ['cy@example.test'], reply_to: ['help@acme.test'] });
    expect(detail.deliveries.find((d: { recipient: string }) => d.recipient === 'Gone@example.test')).toMatchObject({ status: 'failed', cause: { code: 'recipient_suppressed' } });
    const [row] = await api.deps.db`select display_names from emails where id = ${res.body.id}`;
    expect(row!.display_names).toEqual({ 'ann@example.test': 'Ann Example', 'Gone@example.test': 'Gone, Long', 'cy@example.test': 'Cy', 'help@acme.test': 'Help Desk' });
    const refused = await acme.send(acme.message({ to: ['Ann <ann@example.test'] }));
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0].path).toBe('to[0]');
  });

  it('sets the sender’s last_used_at on acceptance', async () => {
    api.clock.now = new Date('2031-03-01T12:00:00.000Z');
    try {
      expect((await acme.send(acme.message())).status).toBe(202);
      const [sender] = await api.deps.db`select last_used_at as "lastUsedAt" from senders where id = ${acme.sender.id}`;
      expect(sender!.lastUsedAt).toEqual(api.clock.now);
    } finally {
      api.clock.now = undefined;
    }
  });
});

describe('POST /v1/emails sender policy (422 sender_not_allowed)', () => {
  async function refused(fromField: string, rule: RegExp) {
    const res = await acme.send(acme.message({ from: fromField }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('sender_not_allowed');
    expect(res.body.error.details[0]).toEqual({ path: 'from', message: expect.stringMatching(rule) });
    expect(res.headers['ratelimit-limit']).toBeDefined();
  }

  it('matches the sender case-insensitively', async () => {
    expect((await acme.send(acme.message({ from: 'HELLO@ACME.TEST' }))).status).toBe(202);
  });

  it('refuses an address that is no sender of the account', async () => {
    await refused('nobody@acme.test', /no active sender/);
    const other = await sendingAccount(api, { domain: 'other.test' });
    await refused(other.sender.email, /no active sender/);
  });

  it('refuses a disabled or deleted sender', async () => {
    const disabled = await insertSender(api.deps.db, acme.accountId, acme.domain.id, 'disabled@acme.test');
    await api.deps.db`update senders set configured_state = 'disabled' where id = ${disabled.id}`;
    await refused(disabled.email, /disabled/);
    const deleted = await insertSender(api.deps.db, acme.accountId, acme.domain.id, 'deleted@acme.test');
    await api.deps.db`update senders set configured_state = 'disabled', deleted_at = ${new Date()} where id = ${deleted.id}`;
    await refused(deleted.email, /no active sender/);
  });

  it('refuses a sender whose domain is not ready', async () => {
    const shaky = await sendingAccount(api, { domain: 'shaky.test' });
    await api.deps.db`update domains set dmarc_status = 'missing' where id = ${shaky.domain.id}`;
    const res = await shaky.send(shaky.message());
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].message).toMatch(/domain is not ready/);
  });
});

describe('POST /v1/emails message size (422 message_too_large)', () => {
  const attachmentsOf10MiB = [
    { filename: 'a.bin', content_base64: b64(Buffer.alloc(8 * 1024 * 1024, 7)) },
    { filename: 'b.bin', content_base64: b64(Buffer.alloc(2 * 1024 * 1024, 9)) },
  ];

  it('accepts a message near the limit, measured exactly with the delivery MIME builder', async () => {
    // Its size bound passes 15 MiB (text could triple as quoted-printable); the build says 14.2 MiB.
    const res = await acme.send(acme.message({ content: { html: 'x'.repeat(500 * 1024) }, attachments: attachmentsOf10MiB }));
    expect(res.status).toBe(202);
  });

  it('refuses a message whose MIME would pass 15 MiB', async () => {
    // 1 MiB of '=' becomes about 3 MiB quoted-printable, on top of 10 MiB as base64.
    const res = await acme.send(acme.message({ content: { html: '='.repeat(1024 * 1024) }, attachments: attachmentsOf10MiB }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('message_too_large');
  });
});

describe('BCC and content never leave the service', () => {
  it('shows no BCC address, BCC domain or body text in any response or log line', async () => {
    const secret = 'very.secret.person@bcc-only-domain.test';
    const body = 'Body text that must stay private';
    const res = await acme.send(acme.message({ bcc: [secret], content: { plain: body, html: `<p>${body}</p>` } }), 'bcc-key');
    expect(res.status).toBe(202);
    const answers = [
      res,
      await acme.send(acme.message({ bcc: [secret], content: { plain: body, html: `<p>${body}</p>` } }), 'bcc-key'),
      await acme.send(acme.message({ bcc: [secret], subject: 'changed' }), 'bcc-key'),
      await acme.get('/v1/emails'),
      await acme.get(`/v1/emails/${res.body.id}`),
      await acme.send(acme.message({ from: 'nobody@acme.test', bcc: [secret] })),
      await acme.send(acme.message({ bcc: [secret, 'not valid'] })),
    ];
    expect(answers.map((a) => a.status)).toEqual([202, 202, 409, 200, 200, 422, 422]);
    for (const text of [...answers.map((a) => JSON.stringify(a.body) + JSON.stringify(a.headers)), ...api.logLines().map((l) => JSON.stringify(l))]) {
      expect(text).not.toContain('very.secret.person');
      expect(text).not.toContain('bcc-only-domain');
      expect(text).not.toContain(body);
    }
    expect(answers[4]!.body.bcc_count).toBe(1);
  });
});
