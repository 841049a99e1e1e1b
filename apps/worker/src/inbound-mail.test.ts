import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { Webhook } from 'standardwebhooks';
import { startTestApi, type TestApi } from '@mailer/api/testing';
import { startInboundHarness, type InboundHarness } from '@mailer/inbound/testing';
import { startWebhookReceiver, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type WorkerHarness } from './testing/worker-harness';

/**
 * Inbound mail end to end (docs/api-decisions.md, "Inbound mail"): a domain turned to receiving
 * over HTTP and verified against the loopback DNS server, a route, real SMTP clients (swaks,
 * Python's smtplib) sending into the listener, the message read back over HTTP, and its
 * `email.received` webhook sent by the daemon and verified with the standardwebhooks package.
 */
const run = promisify(execFile);
const INBOUND_HOST = 'mx.inbound.mailer.test';
let worker: WorkerHarness;
let api: TestApi;
let inbound: InboundHarness;
let receiver: WebhookReceiver;
let auth: { Authorization: string };
let secret: string;
let routeId: string;
const dir = mkdtempSync(path.join(tmpdir(), 'inbound-mail-'));

beforeAll(async () => {
  worker = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const env = { DATABASE_URL: worker.env.DATABASE_URL!, REDIS_PREFIX: worker.env.REDIS_PREFIX!, DNS_SERVERS: worker.env.DNS_SERVERS!, INBOUND_HOST, WEBHOOK_ALLOW_PRIVATE: 'true' };
  api = await startTestApi(env);
  inbound = await startInboundHarness({ ...env, INBOUND_RATE_LIMIT: '4' });
  receiver = await startWebhookReceiver();
  worker.startDaemon();
  const account = await api.createAccount();
  auth = { Authorization: `Bearer ${account.management_key}` };

  const domain = await api.http.post('/v1/domains').set(auth).send({ name: 'acme.test' });
  expect((await api.http.patch(`/v1/domains/${domain.body.id}`).set(auth).send({ receiving: true })).body.receiving).toEqual({ status: 'not_checked', enabled: true, host: 'acme.test' });
  const records = (await api.http.get(`/v1/domains/${domain.body.id}/dns`).set(auth)).body.records as { purpose: string; name: string; value: string }[];
  const record = (purpose: string) => records.find((r) => r.purpose === purpose)!;
  expect(record('receiving_mx')).toEqual({ purpose: 'receiving_mx', type: 'MX', name: 'acme.test', value: `10 ${INBOUND_HOST}` });
  worker.dns.set(record('ownership').name, [{ type: 'TXT', data: record('ownership').value }]);
  worker.dns.set('acme.test', [{ type: 'MX', exchange: INBOUND_HOST, priority: 10 }]);
  const checked = await api.http.post(`/v1/domains/${domain.body.id}/check-dns`).set(auth).send({});
  expect(checked.body.receiving.status).toBe('verified');

  const hook = await api.http.post('/v1/webhooks').set(auth).send({ url: receiver.url, events: ['email.received'] });
  secret = hook.body.secret;
  const route = await api.http.post('/v1/inbound/routes').set(auth).send({ pattern: 'Support@ACME.test' });
  expect(route.status).toBe(201);
  expect(route.body).toMatchObject({ pattern: 'support@acme.test', domain_id: domain.body.id, webhook_id: null, enabled: true });
  routeId = route.body.id;
  // The sending side's records: SPF for the loopback address, and a DKIM key the test signs with.
  worker.dns.set('sender.test', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
});
afterAll(async () => {
  await inbound?.close();
  await receiver?.close();
  await api?.close();
  await worker?.close();
});

const ATTACHMENT = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256));
const MESSAGE = [
  'From: Alice <alice@sender.test>',
  'To: Support <support@acme.test>',
  'Subject: Help with my order',
  'Message-ID: <order-1@sender.test>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'My order has not arrived.',
  '--b1',
  'Content-Type: application/octet-stream; name="invoice.bin"',
  'Content-Disposition: attachment; filename="invoice.bin"',
  'Content-Transfer-Encoding: base64',
  '',
  ...(ATTACHMENT.toString('base64').match(/.{1,76}/g) ?? []),
  '--b1',
  'Content-Type: image/png; name="logo.png"',
  'Content-ID: <logo@sender.test>',
  'Content-Disposition: inline',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('not really a png').toString('base64'),
  '--b1--',
  '',
].join('\r\n');

const received = (id: string) => api.http.get(`/v1/inbound/emails/${id}`).set(auth);
/** A GET whose body is bytes, read whole. */
const binary = (url: string) =>
  api.http.get(url).set(auth).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
const RECEIVED_AS = /250 2\.0\.0 OK received as (inb_[0-9A-Za-z]{22})/;

describe('mail to a routed address', () => {
  it('from swaks over STARTTLS: stored byte for byte, read over HTTP, attachments by id, and an email.received webhook', async () => {
    const file = path.join(dir, 'order.eml');
    // swaks ends the data with CRLF.CRLF after what it reads: the message's own last CRLF is that one.
    writeFileSync(file, MESSAGE.slice(0, -2));
    const { stdout } = await run('swaks', ['--server', '127.0.0.1', '--port', String(inbound.port), '--tls', '--from', 'alice@sender.test', '--to', 'support@acme.test', '--helo', 'client.sender.test', '--data', `@${file}`]);
    const id = RECEIVED_AS.exec(stdout)![1]!;

    const detail = await received(id);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      from: 'Alice <alice@sender.test>',
      to: ['Support <support@acme.test>'],
      recipients: ['support@acme.test'],
      mail_from: 'alice@sender.test',
      subject: 'Help with my order',
      text: 'My order has not arrived.',
      route_id: routeId,
      auth: { spf: { result: 'pass', domain: 'sender.test' }, dkim: { result: 'none', signatures: [] } },
    });
    expect(detail.body.headers).toContainEqual({ name: 'Message-ID', value: '<order-1@sender.test>' });
    const [invoice, logo] = detail.body.attachments;
    expect(invoice).toMatchObject({ filename: 'invoice.bin', content_type: 'application/octet-stream', size: ATTACHMENT.length, content_id: null });
    expect(logo).toMatchObject({ content_type: 'image/png', content_id: 'logo@sender.test' });

    const raw = await binary(`/v1/inbound/emails/${id}/raw`);
    expect(raw.headers['content-type']).toBe('message/rfc822');
    expect(Buffer.compare(raw.body as Buffer, Buffer.from(MESSAGE))).toBe(0);
    const bytes = await binary(`/v1/inbound/emails/${id}/attachments/${invoice.id}`);
    expect(bytes.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.compare(bytes.body as Buffer, ATTACHMENT)).toBe(0);
    expect((await api.http.get(`/v1/inbound/emails/${id}/attachments/iat_000000000000000000000`).set(auth)).status).toBe(404);

    const list = await api.http.get('/v1/inbound/emails').query({ to: 'SUPPORT@acme.test', from: 'alice@sender.test' }).set(auth);
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(id);
    expect((await api.http.get('/v1/inbound/emails').query({ from: 'bob@sender.test' }).set(auth)).body.data).toEqual([]);

    for (const deadline = Date.now() + 10_000; receiver.received.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 25));
    const event = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('email.received');
    expect(event.data).toEqual({
      id,
      from: 'Alice <alice@sender.test>',
      to: ['Support <support@acme.test>'],
      recipients: ['support@acme.test'],
      subject: 'Help with my order',
      received_at: detail.body.received_at,
      route_id: routeId,
      attachments: detail.body.attachments,
      auth: detail.body.auth,
    });
  });

  /** Sends `raw` with smtplib over STARTTLS and prints the final reply. */
  const SMTPLIB = `
import smtplib, ssl, sys
port, raw = int(sys.argv[1]), open(sys.argv[2], 'rb').read()
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
client = smtplib.SMTP("127.0.0.1", port)
client.starttls(context=context)
client.ehlo("client.sender.test")
client.mail("alice@sender.test")
client.rcpt("support@acme.test")
code, reply = client.data(raw)
client.quit()
print(code, reply.decode())
`;

  it("from Python's smtplib: a DKIM signature by the sender's published key passes, a message altered after signing fails", async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    worker.dns.set('s1._domainkey.sender.test', [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}` }]);
    const message = 'From: alice@sender.test\r\nTo: support@acme.test\r\nSubject: Signed\r\nMessage-ID: <signed@sender.test>\r\n\r\nSigned by the sender.\r\n';
    const signed = await dkimSign(message, { signatureData: [{ signingDomain: 'sender.test', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }] } as never);
    const genuine = `${signed.signatures}${message}`;
    const send = async (raw: string) => {
      const file = path.join(dir, `${Math.random()}.eml`);
      writeFileSync(file, raw);
      const { stdout } = await run('/usr/bin/python3', ['-c', SMTPLIB, String(inbound.port), file]);
      return (await received(/inb_[0-9A-Za-z]{22}/.exec(stdout)![0])).body;
    };
    expect((await send(genuine)).auth).toMatchObject({
      spf: { result: 'pass' },
      dkim: { result: 'pass', signatures: [{ domain: 'sender.test', selector: 's1', result: 'pass' }] },
      dmarc: { result: 'none' },
    });
    // Forged after signing: a signed header, or the body.
    expect((await send(genuine.replace('Subject: Signed', 'Subject: Urgent'))).auth.dkim).toMatchObject({ result: 'fail', signatures: [{ result: 'fail' }] });
    expect((await send(genuine.replace('Signed by the sender.', 'Pay to another account.'))).auth.dkim).toMatchObject({ result: 'fail', signatures: [{ result: 'fail' }] });
  });
});

describe('the listener refuses at RCPT', () => {
  it('550 5.1.1 for an address no enabled route matches, before DATA', async () => {
    for (const to of ['nobody@acme.test', 'support@elsewhere.test', 'support@bounces.acme.test']) {
      expect(await inbound.send([to], 'Subject: x\r\n\r\nx\r\n')).toMatchObject({ accepted: false, responseCode: 550, response: '550 5.1.1 No such user here' });
    }
    expect((await api.http.patch(`/v1/inbound/routes/${routeId}`).set(auth).send({ enabled: false })).body.enabled).toBe(false);
    expect(await inbound.send(['support@acme.test'], 'Subject: x\r\n\r\nx\r\n')).toMatchObject({ accepted: false, responseCode: 550 });
    expect((await api.http.patch(`/v1/inbound/routes/${routeId}`).set(auth).send({ enabled: true })).body.enabled).toBe(true);
  });

  it('452 4.2.1 once the account received INBOUND_RATE_LIMIT messages within the window', async () => {
    const [row] = await inbound.deps.db`select count(*)::int as n from inbound_emails where route_id = ${routeId}`;
    let refused: Awaited<ReturnType<InboundHarness['send']>> | undefined;
    for (let i = row!.n; i < 6 && !refused; i++) {
      const result = await inbound.send(['support@acme.test'], `Subject: burst ${i}\r\n\r\nx\r\n`);
      if (!result.accepted) refused = result;
    }
    expect(refused).toMatchObject({ responseCode: 452, response: expect.stringMatching(/^452 4\.2\.1 /) });
    const [after] = await inbound.deps.db`select count(*)::int as n from inbound_emails where route_id = ${routeId}`;
    expect(after!.n).toBe(4);
  });
});
