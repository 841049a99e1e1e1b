import { randomBytes, randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { insertReadyDomain, insertSender, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer } from '@mailer/testing';
import { LOG_KEY } from '@mailer/logger';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';
import { Webhook } from 'standardwebhooks';

/** POST /v1/emails on the API, delivery by the daemon, GET /v1/emails/{id} to read the outcome. */
let h: WorkerHarness;
let api: TestApi;
let auth: string;
let management: string;
/** Every byte value once: an attachment that any text re-encoding along the way would corrupt. */
const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const peers: TestSmtpServer[] = [];

async function mx(domain: string, address: string, options: Omit<Parameters<typeof startTestSmtpServer>[0], 'host' | 'port'> = {}) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx-host.${domain}`, priority: 10 }]);
  h.dns.set(`mx-host.${domain}`, [{ type: 'A', address }]);
  const peer = await startTestSmtpServer({ host: address, port: h.smtpPort, ...options });
  peers.push(peer);
  return peer;
}

const send = (body: Record<string, unknown>) =>
  api.http.post('/v1/emails').set('Authorization', auth).set('Idempotency-Key', randomUUID()).send({ from: 'hello@shop.test', subject: 'Your receipt', ...body });
const detail = (id: string) => api.http.get(`/v1/emails/${id}`).set('Authorization', auth);
const cancel = (id: string) => api.http.post(`/v1/emails/${id}/cancel`).set('Authorization', auth);
const reschedule = (id: string, at: Date) => api.http.patch(`/v1/emails/${id}`).set('Authorization', auth).send({ scheduled_at: at.toISOString() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForApiStatus(id: string, statuses: string[]) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await detail(id);
    if (statuses.includes(res.body.status)) return res.body as Record<string, any>;
    if (Date.now() > deadline) throw new Error(`status ${res.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  h = await startWorkerHarness({ RETRY_SCHEDULE: '1s', WEBHOOK_ALLOW_PRIVATE: 'true' });
  api = await startTestApi({ DATABASE_URL: h.env.DATABASE_URL!, REDIS_PREFIX: h.env.REDIS_PREFIX!, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const provisioned = await api.createAccount();
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, provisioned.account.id, 'shop.test');
  h.dns.set(`${domain.dkim.selector}._domainkey.shop.test`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
  await insertSender(api.deps.db, provisioned.account.id, domain.id, 'hello@shop.test', { displayName: 'Shop Support' });
  auth = `Bearer ${provisioned.sending_key}`;
  management = `Bearer ${provisioned.management_key}`;
  h.startDaemon();
});
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await api.close();
  await h.close();
});

describe('POST /v1/emails to the recipient MX', () => {
  it('tells a webhook endpoint registered over the API, signed with the secret the API gave', async () => {
    await mx('hooked.test', '127.0.0.4');
    const receiver = await startWebhookReceiver();
    try {
      const hook = await api.http.post('/v1/webhooks').set('Authorization', management).send({ url: receiver.url, events: ['email.accepted'] });
      expect(hook.status).toBe(201);
      const accepted = await send({ to: ['ann@hooked.test'], content: { plain: 'Hello' } });
      expect(accepted.status).toBe(202);
      await waitForApiStatus(accepted.body.id, ['accepted']);
      const deadline = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const [{ headers, body }] = receiver.received as [(typeof receiver.received)[number]];
      expect(new Webhook(hook.body.secret).verify(body, headers as Record<string, string>)).toMatchObject({
        type: 'email.accepted',
        data: { email_id: accepted.body.id, recipient: 'ann@hooked.test', status: 'accepted', subject: 'Your receipt', from: 'Shop Support <hello@shop.test>' },
      });
      let deliveries: { status: string }[] = [];
      while (deliveries[0]?.status !== 'succeeded' && Date.now() < deadline) {
        deliveries = (await api.http.get(`/v1/webhooks/${hook.body.id}/deliveries`).set('Authorization', management)).body.data;
      }
      expect(deliveries).toEqual([expect.objectContaining({ event_id: headers['webhook-id'], type: 'email.accepted', status: 'succeeded', attempt_count: 1, last_response_status: 200 })]);
      await api.http.delete(`/v1/webhooks/${hook.body.id}`).set('Authorization', management);
    } finally {
      await receiver.close();
    }
  });

  it('delivers a DKIM-signed message whose detail shows attempts and events, and nothing of the BCC or the MX', async () => {
    const one = await mx('one.test', '127.0.0.2');
    const hidden = await mx('hidden-bcc.test', '127.0.0.3');
    const accepted = await send({
      to: ['ann@one.test'],
      cc: ['Bob@ONE.test'],
      bcc: ['secret@hidden-bcc.test'],
      content: { plain: 'Thanks!', html: '<p>Thanks! <img src="cid:logo"></p>' },
      attachments: [
        { filename: 'logo.png', content_base64: 'iVBORw0KGgo=', content_id: 'logo' },
        { filename: 'every-byte.bin', content_base64: EVERY_BYTE.toString('base64') },
      ],
    });
    expect(accepted.status).toBe(202);
    const body = await waitForApiStatus(accepted.body.id, ['accepted']);

    expect(one.messages).toHaveLength(1);
    expect(hidden.messages).toHaveLength(1);
    expect(hidden.messages[0]!.to).toEqual(['secret@hidden-bcc.test']);
    const raw = one.messages[0]!.raw;
    expect(raw.toString()).toMatch(/^From: Shop Support <hello@shop\.test>\r$/m);
    expect(raw.toString()).not.toContain('secret@hidden-bcc.test');
    expect((await verifyDkim(raw, h.dns.address))[0]).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
    // Attachment bytes survive intake's storage and the daemon's build unchanged.
    const part = /filename=every-byte\.bin\r\n(?:[^\r\n]+\r\n)*\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/.exec(raw.toString());
    expect(Buffer.from(part![1]!.replace(/\s/g, ''), 'base64').equals(EVERY_BYTE)).toBe(true);

    expect(body.deliveries.map((d: any) => [d.recipient, d.status, d.attempt_count])).toEqual([
      ['ann@one.test', 'accepted', 1],
      ['Bob@one.test', 'accepted', 1],
    ]);
    expect(body.bcc_deliveries).toMatchObject({ accepted: 1, queued: 0 });
    expect(body.attempts).toHaveLength(2);
    expect(body.attempts.map((a: any) => [a.outcome, a.tls, a.bcc_recipients]).sort()).toEqual([
      ['accepted', true, 0],
      ['accepted', true, 1],
    ]);
    expect(body.events.map((e: any) => e.type)).toEqual(expect.arrayContaining(['queued', 'sending', 'accepted']));
    expect(body.timestamps.completed_at).not.toBeNull();
    const json = JSON.stringify(body);
    for (const secret of ['secret', 'hidden-bcc', 'mx-host', 'OK: queued', 'Thanks']) expect(json).not.toContain(secret);

    // The logs of the whole send, API and daemon: never a key, the content or the BCC recipient.
    const logs = [...api.logLines(), ...h.logLines()];
    expect(h.logLines().length).toBeGreaterThan(0);
    const text = logs.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of [auth.slice('Bearer '.length), 'secret@hidden-bcc.test', 'hidden-bcc', 'Thanks!', '<p>', 'iVBORw0KGgo']) {
      expect(text).not.toContain(secret);
    }
    for (const line of h.logLines().filter((l) => l.email_id !== undefined)) expect(line.email_id).toMatch(/^em_/);
    expect(h.logLines().some((line) => line.email_id === accepted.body.id)).toBe(true);
    for (const line of api.logLines()) expect(line.request_id).toMatch(/^req_/);
    // One key style in every line of both services, nested fields included (docs/guide.md, "Logs (operators)").
    const keys = (value: unknown): string[] =>
      Array.isArray(value) ? value.flatMap(keys) : value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...keys(v)]) : [];
    expect(logs.flatMap(keys).filter((key) => !LOG_KEY.test(key))).toEqual([]);
    // Delivery lines name the recipient domain they are about.
    expect(h.logLines().filter((line) => line.message === 'attempt recorded').map((line) => line.recipient_domain)).toContain('one.test');
  });

  it('delivers content that breaks naive signers with a signature that verifies on the bytes received', async () => {
    const one = await mx('one.test', '127.0.0.2');
    const eml = `Subject: Grüße\n\n${'y'.repeat(5000)}\n`;
    const accepted = await send({
      to: ['ann@one.test'],
      subject: 'a'.repeat(998),
      content: { html: '<p>Line one\rline two\nline three</p>\r\n<p>Thanks!  </p>' },
      attachments: [
        { filename: `${'f'.repeat(251)}.eml`, content_base64: Buffer.from(eml).toString('base64') },
        { filename: 'notes.txt', content_base64: Buffer.from('one\rtwo\nthree').toString('base64') },
      ],
    });
    expect(accepted.status).toBe(202);
    await waitForApiStatus(accepted.body.id, ['accepted']);
    const raw = one.messages[0]!.raw;
    expect((await verifyDkim(raw, h.dns.address))[0]).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
    const text = raw.toString('latin1');
    expect(text).not.toMatch(/[\x80-\xff]/);
    expect(text).toMatch(/^Content-Type: text\/plain; charset=utf-8\r$/m);
    expect(text).toMatch(/^Content-Type: message\/rfc822;\r$/m);
    expect(text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n').filter((line) => line.length > 78)).toEqual([]);
  });

  it('delivers attachments byte-identical, text ones included, under a signature that verifies', async () => {
    const one = await mx('one.test', '127.0.0.2');
    const rows = Array.from({ length: 40 }, (_, i) => `${i},row ${i}`);
    const files: [string, string, Buffer][] = [
      ['lf.txt', 'text/plain', Buffer.from(`${rows.join('\n')}\n`)],
      ['lf.csv', 'text/csv', Buffer.from(`${rows.join('\n')}\n`)],
      ['crlf.json', 'application/json', Buffer.from(`{\r\n  "a": 1\r\n}\r\n`)],
      ['mixed.html', 'text/html', Buffer.from('<p>a</p>\r\n<p>b</p>\n<p>c</p>\r.\n\r')],
      ['no-final-newline.csv', 'text/csv', Buffer.from('a;b\nä;ü')],
      ['nul-and-8bit.txt', 'text/plain', Buffer.from([0x61, 0x00, 0x0a, 0xe4, 0x0d, 0xff, 0x0a])],
      ['every-byte.txt', 'text/plain', EVERY_BYTE],
      ['random.csv', 'text/csv', randomBytes(3000)],
    ];
    const accepted = await send({
      to: ['ann@one.test'],
      content: { plain: 'Files attached.' },
      attachments: files.map(([filename, contentType, bytes]) => ({ filename, content_type: contentType, content_base64: bytes.toString('base64') })),
    });
    expect(accepted.status).toBe(202);
    await waitForApiStatus(accepted.body.id, ['accepted']);
    const raw = one.messages[0]!.raw;
    expect((await verifyDkim(raw, h.dns.address))[0]).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
    const parsed = await simpleParser(raw);
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString('hex')])).toEqual(files.map(([filename, , bytes]) => [filename, bytes.toString('hex')]));
    for (const a of parsed.attachments.filter((a) => a.contentType.startsWith('text/'))) expect(a.headers.get('content-type')).toHaveProperty('params.charset');
  });

  it('shows a bounce with its normalized cause and not the reply text', async () => {
    await mx('one.test', '127.0.0.2', { rcpt: () => '550 5.1.1 <x@one.test>: Recipient address rejected: User unknown in local recipient table' });
    const accepted = await send({ to: ['nobody@one.test'], content: { plain: 'Hi' } });
    const body = await waitForApiStatus(accepted.body.id, ['bounced']);
    expect(body.cause).toEqual({ code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' });
    expect(body.deliveries[0]).toMatchObject({ status: 'bounced', cause: { code: 'recipient_unknown' } });
    expect(JSON.stringify(body)).not.toContain('local recipient table');
  });

  it('defers, shows the deferral, then delivers on retry; the body is gone afterwards while the history stays', async () => {
    const peer = await mx('one.test', '127.0.0.2', { data: { kind: 'reply', reply: '451 4.7.1 Greylisted' } });
    const accepted = await send({ to: ['ann@one.test'], content: { plain: 'Retry me' } });
    const deferred = await waitForApiStatus(accepted.body.id, ['deferred']);
    expect(deferred.cause).toEqual({ code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' });
    peer.behavior.data = { kind: 'accept' };
    const body = await waitForApiStatus(accepted.body.id, ['accepted']);
    expect(body.attempts.map((a: any) => a.outcome)).toEqual(['deferred', 'accepted']);
    expect(body.events.map((e: any) => e.type)).toEqual(['queued', 'sending', 'deferred', 'sending', 'accepted']);
    const stored = await h.readEmail(accepted.body.id);
    expect(stored.email).toMatchObject({ textBody: null, htmlBody: null });
    expect(stored.email.contentPurgedAt).toBeInstanceOf(Date);
  });
});

/** The send API additions (docs/api-decisions.md, "Send API additions"). */
describe('reply_to, headers and tags', () => {
  it('go out as Reply-To and header fields covered by the DKIM signature, and tags reach the webhook body', async () => {
    const peer = await mx('additions.test', '127.0.0.6');
    const receiver = await startWebhookReceiver();
    try {
      const hook = await api.http.post('/v1/webhooks').set('Authorization', management).send({ url: receiver.url, events: ['email.accepted'] });
      const unsubscribe = '<https://shop.test/unsubscribe/abc>, <mailto:unsubscribe@shop.test?subject=abc>';
      const accepted = await send({
        to: 'ann@additions.test',
        content: { plain: 'Thanks!' },
        reply_to: 'Support@Shop.test',
        headers: { 'List-Unsubscribe': unsubscribe, 'list-unsubscribe-post': 'List-Unsubscribe=One-Click', 'X-Campaign': 'spring' },
        tags: { campaign: 'spring', kind: 'receipt' },
      });
      expect(accepted.status).toBe(202);
      const body = await waitForApiStatus(accepted.body.id, ['accepted']);
      expect(body).toMatchObject({ tags: { campaign: 'spring', kind: 'receipt' }, reply_to: ['Support@shop.test'], scheduled_at: null });

      const raw = peer.messages[0]!.raw;
      const text = raw.toString();
      expect(text).toMatch(/^Reply-To: Support@shop\.test\r$/m);
      expect(text.replace(/\r\n[ \t]+/g, ' ')).toContain(`List-Unsubscribe: ${unsubscribe}`);
      expect(text).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
      expect(text).toMatch(/^X-Campaign: spring\r$/m);
      const [signature] = await verifyDkim(raw, h.dns.address);
      expect(signature).toMatchObject({ signingDomain: 'shop.test', status: { result: 'pass' } });
      // Gmail's one-click unsubscription needs both fields signed (RFC 8058 section 4).
      const signed = /^DKIM-Signature:[^]*?\bh=([^;]+);/im.exec(text)![1]!.replace(/\s/g, '').toLowerCase().split(':');
      expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'reply-to']));

      const deadline = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await sleep(25);
      const { headers, body: webhookBody } = receiver.received[0]!;
      expect(new Webhook(hook.body.secret).verify(webhookBody, headers as Record<string, string>)).toMatchObject({
        type: 'email.accepted',
        data: { email_id: accepted.body.id, tags: { campaign: 'spring', kind: 'receipt' } },
      });
      await api.http.delete(`/v1/webhooks/${hook.body.id}`).set('Authorization', management);
    } finally {
      await receiver.close();
    }
  });
});

describe('scheduled_at and cancel', () => {
  it('holds a scheduled message queued before its time, sending nothing', async () => {
    const peer = await mx('later.test', '127.0.0.7');
    // An hour ahead: however slow this machine, every read below is before its time.
    const scheduledAt = new Date(Date.now() + 3_600_000);
    const accepted = await send({ to: ['ann@later.test'], content: { plain: 'Later' }, scheduled_at: scheduledAt.toISOString() });
    expect(accepted.status).toBe(202);
    await sleep(1_500);
    expect((await detail(accepted.body.id)).body).toMatchObject({ status: 'queued', scheduled_at: scheduledAt.toISOString(), attempts: [] });
    expect(peer.messages).toHaveLength(0);
  });

  it('delivers a scheduled message at its time, not before', async () => {
    const peer = await mx('soon.test', '127.0.0.10');
    const scheduledAt = new Date(Date.now() + 2_000);
    const accepted = await send({ to: ['ann@soon.test'], content: { plain: 'Soon' }, scheduled_at: scheduledAt.toISOString() });
    expect(accepted.status).toBe(202);
    const body = await waitForApiStatus(accepted.body.id, ['accepted']);
    expect(peer.messages).toHaveLength(1);
    expect(new Date(body.attempts[0].started_at).getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
  });

  it('cancels a scheduled message: failed, cause canceled, never delivered', async () => {
    const peer = await mx('canceled.test', '127.0.0.8');
    // Canceled well before its time, however slow the two requests; then its time passes.
    const scheduledAt = new Date(Date.now() + 5_000);
    const accepted = await send({ to: ['ann@canceled.test'], cc: ['bob@canceled.test'], content: { plain: 'Never' }, scheduled_at: scheduledAt.toISOString() });
    const res = await cancel(accepted.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: accepted.body.id, status: 'failed', cause: { code: 'canceled', permanent: true } });
    expect(res.body.deliveries.map((d: any) => [d.recipient, d.status, d.cause.code, d.attempt_count])).toEqual([
      ['ann@canceled.test', 'failed', 'canceled', 0],
      ['bob@canceled.test', 'failed', 'canceled', 0],
    ]);
    expect(res.body.timestamps.completed_at).not.toBeNull();
    // Canceled twice: nothing is left to cancel.
    expect((await cancel(accepted.body.id)).body.error.code).toBe('email_not_cancelable');
    await sleep(Math.max(0, scheduledAt.getTime() + 1_500 - Date.now()));
    expect(peer.messages).toHaveLength(0);
    expect((await detail(accepted.body.id)).body.attempts).toEqual([]);
  });

  it('reschedules a message later, past its first time, then earlier: delivered at the last time asked, not before', async () => {
    const peer = await mx('moved.test', '127.0.0.11');
    const first = new Date(Date.now() + 1_500);
    const accepted = await send({ to: ['ann@moved.test'], content: { plain: 'Moved' }, scheduled_at: first.toISOString() });
    expect((await reschedule(accepted.body.id, new Date(Date.now() + 3_600_000))).status).toBe(200);
    // The job owed at the first time runs and finds nothing due.
    await sleep(Math.max(0, first.getTime() + 1_500 - Date.now()));
    expect(peer.messages).toHaveLength(0);
    expect((await detail(accepted.body.id)).body).toMatchObject({ status: 'queued', attempts: [] });
    const last = new Date(Date.now() + 1_500);
    expect((await reschedule(accepted.body.id, last)).body.scheduled_at).toBe(last.toISOString());
    const body = await waitForApiStatus(accepted.body.id, ['accepted']);
    expect(peer.messages).toHaveLength(1);
    expect(new Date(body.attempts[0].started_at).getTime()).toBeGreaterThanOrEqual(last.getTime());
    expect((await reschedule(accepted.body.id, new Date(Date.now() + 60_000))).body.error.code).toBe('email_not_reschedulable');
  });

  it('refuses to cancel once a delivery has started (409 email_not_cancelable)', async () => {
    await mx('started.test', '127.0.0.9');
    const accepted = await send({ to: ['ann@started.test'], content: { plain: 'Now' } });
    await waitForApiStatus(accepted.body.id, ['accepted']);
    const res = await cancel(accepted.body.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('email_not_cancelable');
    expect((await detail(accepted.body.id)).body.status).toBe('accepted');
  });
});
