import { shownWebhookUrl, splitWebhookCredentials, basicAuthorization } from './webhook-credentials';
import { attachmentsWithContent, WEBHOOK_ATTACHMENT_CONTENT_BYTES } from './webhook-attachment-content';
import { WEBHOOK_FORMAT_ROUTES, webhookPayload, webhookSignatureHeaders } from './webhook-formats';
import type { RecordedWebhookEvent } from './recorded-webhook-event';
import { webhookUrlProblem } from './webhook-url';

const at = new Date('2026-12-02T10:00:00.000Z');
const event = (overrides: Partial<RecordedWebhookEvent>): RecordedWebhookEvent => ({
  id: 'evt_1',
  type: 'email.accepted',
  occurredAt: at,
  emailId: 'em_1',
  recipient: 'ann@example.org',
  recipientKind: 'to',
  status: 'accepted',
  cause: null,
  attemptCount: 1,
  data: null,
  fromEmail: 'shop@example.com',
  fromName: 'Shop',
  subject: 'Your receipt',
  tags: { tag: 'receipt', customer: 'c-42' },
  messageIdHeader: '<m1@example.com>',
  emailCreatedAt: new Date('2026-12-02T09:59:59.000Z'),
  test: false,
  inbound: null,
  ...overrides,
});
const bounce = { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' } as const;

describe('webhook formats', () => {
  it('keeps the default body of section 11', () => {
    expect(webhookPayload(event({}), 'default')).toEqual({
      type: 'email.accepted',
      timestamp: at.toISOString(),
      data: { email_id: 'em_1', recipient: 'ann@example.org', recipient_kind: 'to', status: 'accepted', cause: null, attempt_count: 1, from: 'Shop <shop@example.com>', subject: 'Your receipt', tags: { tag: 'receipt', customer: 'c-42' }, test: false },
    });
  });

  it("maps to Resend's event names and payloads", () => {
    const data = { created_at: '2026-12-02T09:59:59.000Z', email_id: 'em_1', message_id: '<m1@example.com>', from: 'Shop <shop@example.com>', to: ['ann@example.org'], subject: 'Your receipt', tags: { tag: 'receipt', customer: 'c-42' } };
    expect(webhookPayload(event({}), 'resend')).toEqual({ type: 'email.delivered', created_at: at.toISOString(), data });
    expect(webhookPayload(event({ type: 'email.deferred', status: 'deferred' }), 'resend')).toMatchObject({ type: 'email.delivery_delayed' });
    expect(webhookPayload(event({ type: 'email.complained' }), 'resend')).toMatchObject({ type: 'email.complained', data });
    expect(webhookPayload(event({ type: 'email.unsubscribed', recipient: 'Ann@example.org' }), 'resend')).toEqual({
      type: 'suppression.added',
      created_at: at.toISOString(),
      data: { id: 'ann@example.org', email: 'Ann@example.org', origin: 'manual', source_id: 'em_1', created_at: at.toISOString() },
    });
    expect(webhookPayload(event({ type: 'email.bounced', status: 'bounced', cause: bounce }), 'resend')).toEqual({
      type: 'email.bounced',
      created_at: at.toISOString(),
      data: { ...data, bounce: { message: "The recipient's mail server refused the message: recipient_unknown (550 5.1.1)", type: 'Permanent', subType: 'NoEmail' } },
    });
    const failed = webhookPayload(event({ type: 'email.failed', status: 'failed', cause: { code: 'retries_exhausted', permanent: true, smtp_code: null, enhanced_status: null } }), 'resend');
    expect(failed).toMatchObject({ type: 'email.failed', data: { failed: { reason: 'retries_exhausted' } } });
  });

  it("maps to Postmark's Delivery, Bounce, SpamComplaint and SubscriptionChange records", () => {
    const common = { MessageID: 'em_1', ServerID: 0, MessageStream: 'outbound', Tag: 'receipt', Metadata: { customer: 'c-42' } };
    expect(webhookPayload(event({}), 'postmark')).toEqual({
      RecordType: 'Delivery',
      Recipient: 'ann@example.org',
      DeliveredAt: at.toISOString(),
      Details: "Accepted by the recipient's mail server.",
      ...common,
    });
    expect(webhookPayload(event({ type: 'email.bounced', status: 'bounced', cause: bounce }), 'postmark')).toMatchObject({
      RecordType: 'Bounce',
      Type: 'HardBounce',
      TypeCode: 1,
      Email: 'ann@example.org',
      From: 'shop@example.com',
      BouncedAt: at.toISOString(),
      Details: 'recipient_unknown (550 5.1.1)',
      Inactive: true,
      CanActivate: true,
      ...common,
    });
    expect(webhookPayload(event({ type: 'email.deferred', status: 'deferred', cause: { ...bounce, code: 'greylisted', permanent: false } }), 'postmark')).toMatchObject({ RecordType: 'Bounce', Type: 'Transient', TypeCode: 2, Inactive: false });
    expect(webhookPayload(event({ type: 'email.complained' }), 'postmark')).toMatchObject({ RecordType: 'SpamComplaint', Type: 'SpamComplaint', TypeCode: 100001, Inactive: true });
    expect(webhookPayload(event({ type: 'email.unsubscribed' }), 'postmark')).toEqual({
      RecordType: 'SubscriptionChange',
      ChangedAt: at.toISOString(),
      Recipient: 'ann@example.org',
      Origin: 'Recipient',
      SuppressSending: true,
      SuppressionReason: 'ManualSuppression',
      ...common,
    });
  });

  it("carries a received message as Resend's email.received and Postmark's inbound webhook", () => {
    const data = { id: 'inb_1', from: 'Ann <ann@example.org>', to: ['support@shop.test'], recipients: ['support@shop.test'], subject: 'Help', received_at: at.toISOString() };
    const inbound = {
      from: '"Doe, Ann" <ann@example.org>',
      to: ['support@shop.test'],
      cc: ['Cy <cy@example.org>'],
      reply_to: ['ann@example.org'],
      subject: 'Help',
      text: 'Hello',
      html: '<p>Hello</p>',
      headers: [{ name: 'Message-ID', value: '<a1@example.org>' }, { name: 'Date', value: 'Wed, 2 Dec 2026 10:00:00 +0000' }],
      attachments: [{ id: 'iat_1', filename: 'a.txt', content_type: 'text/plain', size: 5, content_id: null, part: 0 }],
    };
    const received = event({ type: 'email.received', emailId: null, recipient: null, recipientKind: null, status: null, data, inbound });
    expect(webhookPayload(received, 'resend')).toEqual({
      type: 'email.received',
      created_at: at.toISOString(),
      data: {
        email_id: 'inb_1',
        created_at: at.toISOString(),
        from: '"Doe, Ann" <ann@example.org>',
        to: ['support@shop.test'],
        bcc: [],
        cc: ['Cy <cy@example.org>'],
        received_for: ['support@shop.test'],
        message_id: '<a1@example.org>',
        subject: 'Help',
        attachments: [{ id: 'iat_1', filename: 'a.txt', content_type: 'text/plain', content_disposition: null, content_id: null }],
      },
    });
    expect(webhookPayload(received, 'postmark')).toMatchObject({
      From: 'ann@example.org',
      FromName: 'Doe, Ann',
      FromFull: { Email: 'ann@example.org', Name: 'Doe, Ann', MailboxHash: '' },
      To: 'support@shop.test',
      CcFull: [{ Email: 'cy@example.org', Name: 'Cy', MailboxHash: '' }],
      OriginalRecipient: 'support@shop.test',
      Date: 'Wed, 2 Dec 2026 10:00:00 +0000',
      MessageID: 'inb_1',
      MessageStream: 'inbound',
      TextBody: 'Hello',
      HtmlBody: '<p>Hello</p>',
      Headers: [{ Name: 'Message-ID', Value: '<a1@example.org>' }, { Name: 'Date', Value: 'Wed, 2 Dec 2026 10:00:00 +0000' }],
      Attachments: [{ Name: 'a.txt', ContentType: 'text/plain', ContentLength: 5, ContentID: '' }],
    });
    // The bytes the sender read, as base64 in Content.
    const withBytes = { ...received, attachmentContents: new Map([['iat_1', Buffer.from('hello')]]) };
    expect(webhookPayload(withBytes, 'postmark')).toMatchObject({ Attachments: [{ Name: 'a.txt', Content: 'aGVsbG8=', ContentType: 'text/plain', ContentLength: 5, ContentID: '' }] });
    expect(JSON.stringify(webhookPayload(withBytes, 'resend'))).not.toContain('aGVsbG8=');
    // Purged since: what the event's data says.
    expect(webhookPayload({ ...received, inbound: null }, 'postmark')).toMatchObject({ From: 'ann@example.org', FromName: 'Ann', Subject: 'Help', TextBody: '', Headers: [] });
    expect(WEBHOOK_FORMAT_ROUTES.sent).toEqual(expect.arrayContaining(['resend email.received', 'postmark email.received']));
  });

  it("carries attachments' bytes within 10 MiB a payload, in the message's order, each that still fits", () => {
    const MiB = 1024 * 1024;
    const attachment = (id: string, size: number) => ({ id, filename: `${id}.bin`, content_type: 'application/octet-stream', size, content_id: null, part: 0 });
    // Sizes as recorded at arrival decide; the bytes are stand-ins.
    const attachments = [attachment('iat_a', 6 * MiB), attachment('iat_b', 5 * MiB), attachment('iat_c', 4 * MiB), attachment('iat_d', 0), attachment('iat_e', 1)];
    expect(attachmentsWithContent(attachments).map((a) => a.id)).toEqual(['iat_a', 'iat_c', 'iat_d']);
    expect(WEBHOOK_ATTACHMENT_CONTENT_BYTES).toBe(10 * MiB);
    const attachmentContents = new Map(attachments.map((a) => [a.id, Buffer.from(a.id)]));
    const data = { id: 'inb_1', from: 'ann@example.org', to: ['support@shop.test'], recipients: ['support@shop.test'], subject: 'Files', received_at: at.toISOString() };
    const inbound = { from: 'ann@example.org', to: ['support@shop.test'], cc: [], reply_to: [], subject: 'Files', text: null, html: null, headers: [], attachments };
    const payload = webhookPayload(event({ type: 'email.received', emailId: null, recipient: null, recipientKind: null, status: null, data, inbound, attachmentContents }), 'postmark') as { Attachments: { Name: string; Content?: string }[] };
    expect(payload.Attachments.map((a) => [a.Name, a.Content && Buffer.from(a.Content, 'base64').toString()])).toEqual([
      ['iat_a.bin', 'iat_a'],
      ['iat_b.bin', undefined],
      ['iat_c.bin', 'iat_c'],
      ['iat_d.bin', 'iat_d'],
      ['iat_e.bin', undefined],
    ]);
    expect(payload.Attachments[1]).not.toHaveProperty('Content');
  });

  it('sends nothing a format has no counterpart for, and no BCC delivery in a foreign format', () => {
    const domain = event({ type: 'domain.status_changed', emailId: null, data: { id: 'dom_1' } });
    expect(webhookPayload(domain, 'default')).toMatchObject({ type: 'domain.status_changed', data: { id: 'dom_1' } });
    expect(webhookPayload(domain, 'resend')).toBeUndefined();
    expect(webhookPayload(domain, 'postmark')).toBeUndefined();
    const bcc = event({ recipient: null, recipientKind: 'bcc' });
    expect(webhookPayload(bcc, 'default')).toMatchObject({ data: { recipient: null, recipient_kind: 'bcc' } });
    expect(webhookPayload(bcc, 'resend')).toBeUndefined();
    expect(webhookPayload(bcc, 'postmark')).toBeUndefined();
    expect(WEBHOOK_FORMAT_ROUTES.sent).toContain('resend email.bounced');
    expect(WEBHOOK_FORMAT_ROUTES.sent).not.toContain('postmark domain.status_changed');
    expect(WEBHOOK_FORMAT_ROUTES.bcc).toEqual(['default']);
    expect(webhookSignatureHeaders('resend')).toEqual(['webhook', 'svix']);
  });

  it('takes HTTP Basic credentials for the postmark format only, apart from the URL, and masks the password', () => {
    expect(webhookUrlProblem('https://hook:s3cret@hooks.example.com/pm', false, 'postmark')).toBeNull();
    expect(webhookUrlProblem('https://hook:s3cret@hooks.example.com/pm', false, 'resend')).toMatch(/must not carry credentials/);
    expect(webhookUrlProblem('https://hook:%zz@hooks.example.com/pm', false, 'postmark')).toBe('must have valid percent-encoding in its credentials');
    expect(webhookUrlProblem('https://a%3Ab:pw@hooks.example.com/pm', false, 'postmark')).toBe('must not have a colon in its user name');
    const { url, credentials } = splitWebhookCredentials('https://hook%20user:p%40ss@hooks.example.com/pm?x=1');
    expect({ url, credentials }).toEqual({ url: 'https://hooks.example.com/pm?x=1', credentials: 'hook user:p@ss' });
    expect(shownWebhookUrl(url, credentials)).toBe('https://hook%20user:********@hooks.example.com/pm?x=1');
    expect(shownWebhookUrl(url, null)).toBe(url);
    expect(basicAuthorization('hook:s3cret')).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
  });
});
