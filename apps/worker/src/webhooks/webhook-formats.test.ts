import type { Models } from 'postmark';
import { Resend, type EmailBouncedEvent, type EmailDeliveredEvent, type EmailReceivedEvent } from 'resend';
import { Webhook } from 'standardwebhooks';
import { createInboundRoute, insertInboundEmails, updateWebhookEndpoint } from '@mailer/db';
import { readInboundMessage } from '@mailer/message';
import { toEmailReceivedData } from '@mailer/operations';
import {
  newId,
  newWebhookSecret,
  parseRoutePattern,
  seal,
  WEBHOOK_CREDENTIALS_SEAL_PURPOSE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_SEAL_PURPOSE,
  type WebhookFormat,
} from '@mailer/domain';
import { insertWebhookEndpoint, startTestSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { startWebhookSender, type WebhookSender } from './webhook-sender';

/** The resend and postmark formats (docs/api-decisions.md, "Webhooks"), from real deliveries to a real SMTP peer. */
let h: WorkerHarness;
let sender: WebhookSender;
let setup: SendingSetup;
let peer: TestSmtpServer;
const receivers: Record<WebhookFormat, WebhookReceiver> = {} as never;
const secrets: Record<WebhookFormat, string> = {} as never;
let emailId: string;

async function until<T>(read: () => T | undefined): Promise<T> {
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const bodies = (format: WebhookFormat) => receivers[format].received.map((r) => ({ headers: r.headers as Record<string, string>, body: r.body, json: JSON.parse(r.body) }));

beforeAll(async () => {
  h = await startWorkerHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' });
  sender = startWebhookSender(h.deps);
  setup = await h.createSendingSetup({ domain: 'formats.test' });
  h.dns.set('one.test', [{ type: 'MX', exchange: 'mx.one.test', priority: 10 }]);
  h.dns.set('mx.one.test', [{ type: 'A', address: '127.0.0.2' }]);
  // Accepts ann, refuses gone: one delivery accepted and one bounced.
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort, rcpt: (a) => (a.startsWith('gone') ? '550 5.1.1 User unknown' : undefined) });
  for (const format of ['default', 'resend', 'postmark'] as const) {
    receivers[format] = await startWebhookReceiver();
    secrets[format] = newWebhookSecret();
    await insertWebhookEndpoint(h.deps.db, {
      accountId: setup.accountId,
      url: receivers[format].url,
      events: [...WEBHOOK_EVENT_TYPES],
      description: null,
      format,
      credentialsSealed: format === 'postmark' ? seal(h.config.encryptionKey, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, 'pm-hook:s3cret pass') : null,
      secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secrets[format]),
      now: new Date(),
    });
  }
  emailId = await h.queueEmail(setup, {
    to: ['ann@one.test', 'gone@one.test'],
    bcc: ['hidden@one.test'],
    subject: 'Your receipt',
    tags: { tag: 'receipt', customer: 'c-42' },
  });
  await h.runJob(emailId);
  await until(() => (receivers.default.received.length >= 3 && receivers.resend.received.length >= 2 && receivers.postmark.received.length >= 2 ? true : undefined));
});
afterAll(async () => {
  await sender.stop();
  await Promise.all([peer.close(), ...Object.values(receivers).map((r) => r.close())]);
  await h.close();
});

describe('webhook formats from real deliveries', () => {
  it("sends Resend's events, signed under svix-* and webhook-*, verified by the resend and standardwebhooks packages", () => {
    const received = bodies('resend');
    expect(received).toHaveLength(2);
    for (const { headers, body } of received) {
      expect(headers['svix-id']).toBe(headers['webhook-id']);
      new Webhook(secrets.resend).verify(body, headers);
      new Resend('re_unused').webhooks.verify({
        payload: body,
        headers: { id: headers['svix-id']!, timestamp: headers['svix-timestamp']!, signature: headers['svix-signature']! },
        webhookSecret: secrets.resend,
      });
    }
    const data = {
      created_at: expect.any(String),
      email_id: emailId,
      message_id: expect.stringContaining('@'),
      from: setup.sender.email,
      subject: 'Your receipt',
      tags: { tag: 'receipt', customer: 'c-42' },
    };
    const delivered: EmailDeliveredEvent = { type: 'email.delivered', created_at: expect.any(String), data: { ...data, to: ['ann@one.test'] } };
    const bounced: EmailBouncedEvent = {
      type: 'email.bounced',
      created_at: expect.any(String),
      data: { ...data, to: ['gone@one.test'], bounce: { message: expect.stringContaining('recipient_unknown (550 5.1.1)'), type: 'Permanent', subType: 'NoEmail' } },
    };
    expect(received.map((r) => r.json).sort((a, b) => a.type.localeCompare(b.type))).toEqual([bounced, delivered]);
    expect(received.map((r) => r.body).join('\n')).not.toContain('hidden');
  });

  it("sends Postmark's Delivery and Bounce records with its HTTP Basic credentials", () => {
    const received = bodies('postmark');
    expect(received).toHaveLength(2);
    for (const { headers, body } of received) {
      expect(headers.authorization).toBe(`Basic ${Buffer.from('pm-hook:s3cret pass').toString('base64')}`);
      new Webhook(secrets.postmark).verify(body, headers);
    }
    const common = { MessageID: emailId, ServerID: 0, MessageStream: 'outbound', Tag: 'receipt', Metadata: { customer: 'c-42' } };
    const delivery: Models.DeliveryWebhook = { RecordType: 'Delivery', Recipient: 'ann@one.test', DeliveredAt: expect.any(String), Details: expect.any(String), ...common };
    const bounce: Models.BounceWebhook = {
      RecordType: 'Bounce',
      ID: 0,
      Type: 'HardBounce',
      TypeCode: 1,
      Name: 'Hard bounce',
      Description: expect.any(String),
      Details: 'recipient_unknown (550 5.1.1)',
      Email: 'gone@one.test',
      From: setup.sender.email,
      BouncedAt: expect.any(String),
      DumpAvailable: false,
      Inactive: true,
      CanActivate: true,
      Subject: 'Your receipt',
      ...common,
    };
    expect(received.map((r) => r.json).sort((a, b) => a.RecordType.localeCompare(b.RecordType))).toEqual([bounce, delivery]);
  });

  it('keeps the default format unchanged beside them, BCC delivery included', () => {
    const received = bodies('default');
    expect(received).toHaveLength(3);
    for (const { headers, body } of received) {
      expect(headers).not.toHaveProperty('svix-id');
      expect(headers).not.toHaveProperty('authorization');
      new Webhook(secrets.default).verify(body, headers);
    }
    expect(received.map((r) => r.json.type).sort()).toEqual(['email.accepted', 'email.accepted', 'email.bounced']);
  });

  it("sends a received message as Resend's email.received and Postmark's inbound webhook", async () => {
    const created = await createInboundRoute(h.deps.db, { accountId: setup.accountId, pattern: parseRoutePattern('*@formats.test')!, webhookId: null, enabled: true, now: new Date() });
    if (created.kind !== 'created') throw new Error(created.kind);
    // Every byte value, and line breaks of both kinds, which must come back as they were sent.
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('a,b\r\nc\n')]);
    const raw = Buffer.from(
      'From: Ann <ann@client.test>\r\nTo: support@formats.test\r\nSubject: Help\r\nMessage-ID: <in1@client.test>\r\nDate: Wed, 2 Dec 2026 10:00:00 +0000\r\n' +
        'Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nHello\r\n--x\r\n' +
        `Content-Type: application/octet-stream; name=a.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n${bytes.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--x--\r\n`,
    );
    const email = { id: newId('inboundEmail'), accountId: setup.accountId, routeId: created.route.id, mailFrom: 'ann@client.test', recipients: ['support@formats.test'], message: await readInboundMessage(raw), size: raw.length, createdAt: new Date() };
    const auth = { spf: { result: 'none', domain: null }, dkim: { result: 'none', signatures: [] }, dmarc: { result: 'none', domain: null, policy: null }, arc: { result: 'none' } };
    await insertInboundEmails(h.deps.db, [{ ...email, auth, remoteAddress: '127.0.0.1', raw, webhookId: null, event: toEmailReceivedData({ ...email, auth }) }]);
    const receivedBy = (format: WebhookFormat) => until(() => bodies(format).find((b) => b.json.type === 'email.received' || b.json.MessageStream === 'inbound'));

    const resend = await receivedBy('resend');
    new Webhook(secrets.resend).verify(resend.body, resend.headers);
    const attachment = { id: email.message.attachments[0]!.id, filename: 'a.bin', content_type: 'application/octet-stream', content_disposition: null, content_id: null };
    const resendEvent: EmailReceivedEvent = {
      type: 'email.received',
      created_at: expect.any(String),
      data: {
        email_id: email.id,
        created_at: email.createdAt.toISOString(),
        from: 'Ann <ann@client.test>',
        to: ['support@formats.test'],
        bcc: [],
        cc: [],
        received_for: ['support@formats.test'],
        message_id: '<in1@client.test>',
        subject: 'Help',
        attachments: [attachment],
      },
    };
    expect(resend.json).toEqual(resendEvent);

    const postmark = await receivedBy('postmark');
    expect(postmark.headers.authorization).toBe(`Basic ${Buffer.from('pm-hook:s3cret pass').toString('base64')}`);
    // The package's type whole: the attachment's bytes as base64 in Content, read from the stored raw message.
    const inbound: Models.InboundWebhook = {
      From: 'ann@client.test',
      FromName: 'Ann',
      FromFull: { Email: 'ann@client.test', Name: 'Ann', MailboxHash: '' },
      To: 'support@formats.test',
      ToFull: [{ Email: 'support@formats.test', Name: '', MailboxHash: '' }],
      Cc: '',
      CcFull: [],
      Bcc: '',
      BccFull: [],
      ReplyTo: '',
      OriginalRecipient: 'support@formats.test',
      Subject: 'Help',
      Date: 'Wed, 2 Dec 2026 10:00:00 +0000',
      MailboxHash: '',
      MessageID: email.id,
      MessageStream: 'inbound',
      TextBody: 'Hello',
      HtmlBody: '',
      StrippedTextReply: '',
      Headers: expect.arrayContaining([{ Name: 'Message-ID', Value: '<in1@client.test>' }]),
      Attachments: [{ Name: 'a.bin', Content: bytes.toString('base64'), ContentType: 'application/octet-stream', ContentLength: bytes.length, ContentID: '' }],
    };
    expect(postmark.json).toEqual(inbound);
    expect(Buffer.from(postmark.json.Attachments[0].Content, 'base64').equals(bytes)).toBe(true);
  });

  it('ends failed, unsent, a delivery recorded before its endpoint moved to a format that does not send it', async () => {
    const fresh = await h.createSendingSetup({ domain: 'format-change.test' });
    const hooks = await startWebhookReceiver();
    // The first attempt fails, and answers only after the format changed: the retry finds the new format.
    hooks.status = 500;
    hooks.delayMs = 1000;
    const endpoint = await insertWebhookEndpoint(h.deps.db, {
      accountId: fresh.accountId,
      url: hooks.url,
      events: ['email.accepted'],
      description: null,
      secretSealed: seal(h.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, newWebhookSecret()),
      now: new Date(),
    });
    // A BCC delivery's event: the default format sends it, the resend format does not.
    await h.runJob(await h.queueEmail(fresh, { to: [], bcc: ['hidden@one.test'] }));
    await until(() => (hooks.received.length >= 1 ? true : undefined));
    await updateWebhookEndpoint(h.deps.db, endpoint, { format: 'resend' }, new Date());
    for (;;) {
      const [row] = await h.deps.db`select status, attempt_count, last_response_status from webhook_deliveries where endpoint_id = ${endpoint.id}`;
      if (row!.status === 'failed') {
        expect({ ...row }).toEqual({ status: 'failed', attempt_count: 2, last_response_status: null });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(hooks.received).toHaveLength(1);
    await hooks.close();
  });
});
