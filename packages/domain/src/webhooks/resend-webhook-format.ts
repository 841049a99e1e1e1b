import type { CauseCode } from '../delivery/causes';
import { formatMailbox } from '../emails/from-address';
import { addressKey } from '../senders/sender-email';
import { headerValue, receivedEmail } from './received-email-fields';
import { causeSummary, engagementOf, type RecordedWebhookEvent } from './recorded-webhook-event';
import type { SentWebhookEventType } from './webhook-events';

/** Resend's bounce `subType` for a cause (its SES-derived vocabulary); `General` for the rest. */
const BOUNCE_SUBTYPES: Partial<Record<CauseCode, string>> = {
  recipient_unknown: 'NoEmail',
  mailbox_disabled: 'NoEmail',
  mailbox_full: 'MailboxFull',
  message_too_large: 'MessageTooLarge',
  message_rejected: 'ContentRejected',
  recipient_suppressed: 'Suppressed',
};

/** Resend's `data` of an email event: the message, and as `to` the one recipient the event is about. */
const emailData = (event: RecordedWebhookEvent) => ({
  created_at: (event.emailCreatedAt ?? event.occurredAt).toISOString(),
  email_id: event.emailId!,
  message_id: event.messageIdHeader ?? '',
  from: event.fromEmail === null ? '' : formatMailbox(event.fromEmail, event.fromName),
  to: event.recipient === null ? [] : [event.recipient],
  subject: event.subject ?? '',
  tags: event.tags ?? {},
});

/** Resend's `email.received`: the envelope and the attachments' metadata; content is read through the receiving API. */
function received(event: RecordedWebhookEvent): object {
  const { data, message } = receivedEmail(event);
  return {
    type: 'email.received',
    created_at: event.occurredAt.toISOString(),
    data: {
      email_id: data.id,
      created_at: data.received_at,
      from: message.from ?? '',
      to: message.to,
      bcc: [],
      cc: message.cc,
      received_for: data.recipients,
      message_id: headerValue(message, 'message-id') ?? '',
      subject: message.subject ?? '',
      attachments: message.attachments.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, content_disposition: null, content_id: a.content_id })),
    },
  };
}

const email =
  (type: string, extra: (event: RecordedWebhookEvent) => object = () => ({})) =>
  (event: RecordedWebhookEvent) => ({ type, created_at: event.occurredAt.toISOString(), data: { ...emailData(event), ...extra(event) } });

/**
 * An unsubscribe as Resend's `suppression.added`: Resend has no email event for one, and the
 * suppression is what it leaves. The id is the suppression's (its address key, as GET
 * /v1/suppressions names it), the source the message; Resend's origins know no unsubscribe,
 * and `manual` is the one that is not a bounce or a complaint.
 */
const suppressionAdded = (event: RecordedWebhookEvent) => ({
  type: 'suppression.added',
  created_at: event.occurredAt.toISOString(),
  data: { id: addressKey(event.recipient!), email: event.recipient!, origin: 'manual', source_id: event.emailId, created_at: event.occurredAt.toISOString() },
});

/**
 * Resend's event names and payloads (docs/api-decisions.md, "Webhooks", the resend format), as
 * the `resend` package's `WebhookEventPayload` types them. A type absent here is not sent:
 * Resend has no counterpart (its `email.sent` and `email.scheduled` report a request this
 * service answers at once; its domain events are of other changes).
 */
export const RESEND_WEBHOOK_SHAPES: Partial<Record<SentWebhookEventType, (event: RecordedWebhookEvent) => object>> = {
  'email.accepted': email('email.delivered'),
  'email.deferred': email('email.delivery_delayed'),
  'email.bounced': email('email.bounced', (event) => ({
    bounce: { message: `The recipient's mail server refused the message: ${causeSummary(event)}`, type: 'Permanent', subType: BOUNCE_SUBTYPES[event.cause!.code] ?? 'General' },
  })),
  'email.failed': email('email.failed', (event) => ({ failed: { reason: causeSummary(event) } })),
  'email.complained': email('email.complained'),
  'email.unsubscribed': suppressionAdded,
  'email.opened': email('email.opened'),
  // The service keeps no client address: ipAddress is empty.
  'email.clicked': email('email.clicked', (event) => {
    const { url, userAgent } = engagementOf(event);
    return { click: { ipAddress: '', link: url ?? '', timestamp: event.occurredAt.toISOString(), userAgent: userAgent ?? '' } };
  }),
  'email.received': received,
  'webhook.test': (event) => ({ type: 'webhook.test', created_at: event.occurredAt.toISOString(), data: event.data }),
};
