import type { CauseCode } from '../delivery/causes';
import { isHardBounce } from '../suppressions/suppression';
import type { InboundAttachmentMeta } from '../inbound/inbound-message';
import { headerValue, receivedEmail, splitMailbox } from './received-email-fields';
import { causeSummary, engagementOf, type RecordedWebhookEvent } from './recorded-webhook-event';
import { attachmentsWithContent } from './webhook-attachment-content';
import type { SentWebhookEventType } from './webhook-events';

/** Postmark's bounce types (its `BounceType` and `BounceTypeCode`), with its names and descriptions. */
const BOUNCE_TYPES = {
  HardBounce: [1, 'Hard bounce', 'The server was unable to deliver your message (ex: unknown user, mailbox not found).'],
  Transient: [2, 'Message delayed', 'The server could not temporarily deliver your message (ex: Message is delayed due to network troubles).'],
  DnsError: [256, 'DNS error', 'The server could not deliver your message because of a DNS problem.'],
  Unknown: [2048, 'Unknown', 'The message could not be delivered for a reason the service does not class as a bounce.'],
  SoftBounce: [4096, 'Soft bounce', 'Unable to temporarily deliver message (i.e. mailbox full, account disabled, exceeds quota, out of disk space).'],
  SpamComplaint: [100001, 'Spam complaint', 'The subscriber explicitly marked this message as spam.'],
  ManuallyDeactivated: [100002, 'Manually deactivated', 'The email was suppressed: the recipient is on the suppression list.'],
  Blocked: [100006, 'Blocked', 'The receiving server refused the message, for its content or its sender.'],
} as const;
type BounceType = keyof typeof BOUNCE_TYPES;

/** The bounce type of a bounced or failed delivery's cause; HardBounce for a bounce and SoftBounce for a failure otherwise. */
const CAUSE_BOUNCE_TYPES: Partial<Record<CauseCode, BounceType>> = {
  recipient_unknown: 'HardBounce',
  mailbox_disabled: 'HardBounce',
  recipient_domain_not_found: 'HardBounce',
  no_mail_server: 'HardBounce',
  mailbox_full: 'SoftBounce',
  message_too_large: 'SoftBounce',
  message_rejected: 'Blocked',
  dns_temporary_failure: 'DnsError',
  recipient_suppressed: 'ManuallyDeactivated',
  canceled: 'Unknown',
  canceled_by_operator: 'Unknown',
  sender_disabled: 'Unknown',
  domain_not_ready: 'Unknown',
  internal_error: 'Unknown',
};

/** Postmark has one `Tag` and string `Metadata`: the tag named `tag` is the Tag, the others the Metadata. */
function tagAndMetadata(event: RecordedWebhookEvent): { Tag?: string; Metadata: Record<string, string> } {
  const { tag, ...metadata } = event.tags ?? {};
  return { ...(tag === undefined ? {} : { Tag: tag }), Metadata: metadata };
}

/** What Postmark's records of one message carry: the service has no Postmark server numbers, so ServerID is 0. */
const common = (event: RecordedWebhookEvent) => ({ MessageID: event.emailId!, ServerID: 0, MessageStream: 'outbound', ...tagAndMetadata(event) });

function bounceRecord(event: RecordedWebhookEvent, recordType: 'Bounce' | 'SpamComplaint', type: BounceType, inactive: boolean) {
  const [typeCode, name, description] = BOUNCE_TYPES[type];
  return {
    RecordType: recordType,
    ID: 0,
    Type: type,
    TypeCode: typeCode,
    Name: name,
    Description: description,
    Details: causeSummary(event),
    Email: event.recipient!,
    From: event.fromEmail ?? '',
    BouncedAt: event.occurredAt.toISOString(),
    DumpAvailable: false,
    Inactive: inactive,
    CanActivate: inactive && recordType === 'Bounce',
    Subject: event.subject ?? '',
    ...common(event),
  };
}

const bounce = (fallback: BounceType) => (event: RecordedWebhookEvent) =>
  bounceRecord(event, 'Bounce', CAUSE_BOUNCE_TYPES[event.cause!.code] ?? fallback, isHardBounce({ status: event.status ?? '', cause: event.cause }));

const recipients = (list: string[]) => list.map(splitMailbox).map(({ email, name }) => ({ Email: email, Name: name, MailboxHash: '' }));

/**
 * Postmark's `Attachments`: each with `Content`, the base64 of its decoded bytes, when
 * attachmentsWithContent takes it (within WEBHOOK_ATTACHMENT_CONTENT_BYTES) and the sender read its
 * bytes; without `Content` otherwise (GET /v1/inbound/emails/{id}/attachments/{attachment_id} answers those).
 */
function attachmentRecords(attachments: InboundAttachmentMeta[], contents: ReadonlyMap<string, Uint8Array> | undefined) {
  const carried = new Set(attachmentsWithContent(attachments).map((a) => a.id));
  return attachments.map((a) => {
    const content = carried.has(a.id) ? contents?.get(a.id) : undefined;
    return {
      Name: a.filename ?? '',
      ...(content === undefined ? {} : { Content: Buffer.from(content).toString('base64') }),
      ContentType: a.content_type,
      ContentLength: a.size,
      ContentID: a.content_id ?? '',
    };
  });
}

/**
 * Postmark's inbound webhook, as the `postmark` package's `InboundWebhook` types it: the message
 * as read at its arrival, its id the `inb_…` one, the attachments' bytes as attachmentRecords says.
 */
function inbound(event: RecordedWebhookEvent): object {
  const { data, message } = receivedEmail(event);
  const from = splitMailbox(message.from ?? '');
  return {
    From: from.email,
    FromName: from.name,
    FromFull: { Email: from.email, Name: from.name, MailboxHash: '' },
    To: message.to.join(', '),
    ToFull: recipients(message.to),
    Cc: message.cc.join(', '),
    CcFull: recipients(message.cc),
    Bcc: '',
    BccFull: [],
    ReplyTo: message.reply_to.join(', '),
    OriginalRecipient: data.recipients[0] ?? '',
    Subject: message.subject ?? '',
    Date: headerValue(message, 'date') ?? data.received_at,
    MailboxHash: '',
    MessageID: data.id,
    MessageStream: 'inbound',
    TextBody: message.text ?? '',
    HtmlBody: message.html ?? '',
    StrippedTextReply: '',
    Headers: message.headers.map((h) => ({ Name: h.name, Value: h.value })),
    Attachments: attachmentRecords(message.attachments, event.attachmentContents),
  };
}

/**
 * An unsubscribe as Postmark reports one: a `SubscriptionChange` record, the recipient's own
 * (`Origin: Recipient`), that suppresses sending with Postmark's reason for an unsubscribe link.
 */
const subscriptionChange = (event: RecordedWebhookEvent) => ({
  RecordType: 'SubscriptionChange',
  ChangedAt: event.occurredAt.toISOString(),
  Recipient: event.recipient!,
  Origin: 'Recipient',
  SuppressSending: true,
  SuppressionReason: 'ManualSuppression',
  ...common(event),
});

/**
 * An open or a click as Postmark's `Open` and `Click` records: the user agent as the service saw
 * it; the client, OS and place Postmark derives from it are left empty, and `FirstOpen` is not
 * known to the event (the delivery's `opened_at` is the first).
 */
const engagementRecord = (recordType: 'Open' | 'Click') => (event: RecordedWebhookEvent) => {
  const { url, userAgent } = engagementOf(event);
  return {
    RecordType: recordType,
    Recipient: event.recipient!,
    ReceivedAt: event.occurredAt.toISOString(),
    UserAgent: userAgent ?? '',
    Platform: 'Unknown',
    Client: { Name: '', Company: '', Family: '' },
    OS: { Name: '', Company: '', Family: '' },
    Geo: {},
    ...(recordType === 'Click' ? { OriginalLink: url ?? '', ClickLocation: 'HTML' } : { ReadSeconds: 0 }),
    ...common(event),
  };
};

/**
 * Postmark's webhook payloads (docs/api-decisions.md, "Webhooks", the postmark format), as the
 * `postmark` package's `DeliveryWebhook`, `BounceWebhook`, `SpamComplaintWebhook`, `SubscriptionChangeWebhook` and `InboundWebhook` type them:
 * a deferral is a `Transient` bounce, as Postmark reports a delay. A type absent here is not
 * sent: Postmark has no domain or account webhooks.
 */
export const POSTMARK_WEBHOOK_SHAPES: Partial<Record<SentWebhookEventType, (event: RecordedWebhookEvent) => object>> = {
  'email.accepted': (event) => ({
    RecordType: 'Delivery',
    Recipient: event.recipient!,
    DeliveredAt: event.occurredAt.toISOString(),
    Details: "Accepted by the recipient's mail server.",
    ...common(event),
  }),
  'email.deferred': (event) => bounceRecord(event, 'Bounce', 'Transient', false),
  'email.bounced': bounce('HardBounce'),
  'email.failed': bounce('SoftBounce'),
  'email.complained': (event) => bounceRecord(event, 'SpamComplaint', 'SpamComplaint', true),
  'email.unsubscribed': subscriptionChange,
  'email.opened': engagementRecord('Open'),
  'email.clicked': engagementRecord('Click'),
  'email.received': inbound,
  'webhook.test': (event) => ({ RecordType: 'Test', Metadata: event.data, SentAt: event.occurredAt.toISOString() }),
};
