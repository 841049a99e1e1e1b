import { DEFAULT_WEBHOOK_SHAPES } from './default-webhook-format';
import { POSTMARK_WEBHOOK_SHAPES } from './postmark-webhook-format';
import type { RecordedWebhookEvent } from './recorded-webhook-event';
import { RESEND_WEBHOOK_SHAPES } from './resend-webhook-format';
import { SENT_WEBHOOK_EVENT_TYPES, type SentWebhookEventType } from './webhook-events';

/** The shapes an endpoint can receive events in (docs/api-decisions.md, "Webhooks"). */
export const WEBHOOK_FORMATS = ['default', 'resend', 'postmark'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

interface WebhookFormatRules {
  /**
   * The prefixes the Standard Webhooks headers are sent under (`<prefix>-id`, `-timestamp`,
   * `-signature`): the same id, timestamp and signatures under each.
   */
  signatureHeaders: readonly ('webhook' | 'svix')[];
  /** Whether events of BCC deliveries are sent: the foreign formats name the recipient, and nothing derived from a BCC address leaves the service. */
  bccDeliveries: boolean;
  /** Whether `email.received` carries the attachments' bytes, as Postmark's inbound webhook does (the sender reads them for it). */
  attachmentContent: boolean;
  /** The body of each event type sent in this format; a type that has none is not sent to such an endpoint. */
  shapes: Partial<Record<SentWebhookEventType, (event: RecordedWebhookEvent) => object>>;
}

/** One row per format: a new event type is one more entry in each format's shapes. */
const FORMATS: Record<WebhookFormat, WebhookFormatRules> = {
  default: { signatureHeaders: ['webhook'], bccDeliveries: true, attachmentContent: false, shapes: DEFAULT_WEBHOOK_SHAPES },
  // Resend signs through Svix: its receivers read svix-*, the standardwebhooks package webhook-*.
  resend: { signatureHeaders: ['webhook', 'svix'], bccDeliveries: false, attachmentContent: false, shapes: RESEND_WEBHOOK_SHAPES },
  // Postmark signs nothing (HTTP Basic credentials authenticate it); the signature is there for those who check it.
  postmark: { signatureHeaders: ['webhook'], bccDeliveries: false, attachmentContent: true, shapes: POSTMARK_WEBHOOK_SHAPES },
};

/** The body of an event for an endpoint of this format, or undefined when that format does not send it. */
export function webhookPayload(event: RecordedWebhookEvent, format: WebhookFormat): object | undefined {
  const rules = FORMATS[format];
  if (event.recipientKind === 'bcc' && !rules.bccDeliveries) return undefined;
  return rules.shapes[event.type]?.(event);
}

/** Whether an `email.received` payload of this format carries attachments' bytes (RecordedWebhookEvent's attachmentContents). */
export const webhookCarriesAttachmentContent = (format: WebhookFormat) => FORMATS[format].attachmentContent;

/** The header prefixes of a format's Standard Webhooks signature. */
export const webhookSignatureHeaders = (format: WebhookFormat) => FORMATS[format].signatureHeaders;

/**
 * What the outbox writes deliveries for, as data for its statement: the `format type` pairs a
 * format sends, and the formats that send BCC deliveries' events (webhookPayload's rules).
 */
export const WEBHOOK_FORMAT_ROUTES = {
  sent: WEBHOOK_FORMATS.flatMap((format) => SENT_WEBHOOK_EVENT_TYPES.filter((type) => FORMATS[format].shapes[type]).map((type) => `${format} ${type}`)),
  bcc: WEBHOOK_FORMATS.filter((format) => FORMATS[format].bccDeliveries),
};
