import type { DeliveryCause } from '../delivery/causes';
import type { InboundMessage } from '../inbound/inbound-message';
import type { SentWebhookEventType } from './webhook-events';

/**
 * An event as the outbox recorded it, with its message's facts for email events: what every
 * webhook format shapes its body from, so that every retry sends the same bytes. For a BCC
 * delivery the recipient was recorded as null.
 */
export interface RecordedWebhookEvent {
  id: string;
  type: SentWebhookEventType;
  occurredAt: Date;
  emailId: string | null;
  recipient: string | null;
  recipientKind: 'to' | 'cc' | 'bcc' | null;
  status: string | null;
  cause: DeliveryCause | null;
  attemptCount: number | null;
  /** The data of an event that carries it whole (carriesData). */
  data: unknown;
  /** The message's From (address and display name), subject, tags, Message-ID and creation, for email events. */
  fromEmail: string | null;
  fromName: string | null;
  subject: string | null;
  tags: Record<string, string> | null;
  messageIdHeader: string | null;
  emailCreatedAt: Date | null;
  /** Whether the message is a test message (docs/api-decisions.md, "Test mode"); null for other events. */
  test: boolean | null;
  /**
   * For `email.received`: the received message as read at its arrival (immutable, so every retry
   * sends the same bytes), which the foreign formats carry as their providers do; null for other events.
   */
  inbound: InboundMessage | null;
  /**
   * For `email.received` to a format that carries attachments' bytes (webhookCarriesAttachmentContent):
   * the decoded bytes of the attachments attachmentsWithContent takes, by attachment id, read at send
   * time from the stored raw message (which never changes); absent otherwise.
   */
  attachmentContents?: ReadonlyMap<string, Uint8Array>;
}

/** The cause as integrators see it elsewhere: its code, and the SMTP codes when there were some. */
export function causeSummary(event: RecordedWebhookEvent): string {
  const cause = event.cause;
  if (!cause) return '';
  const codes = [cause.smtp_code, cause.enhanced_status].filter((c) => c !== null).join(' ');
  return codes ? `${cause.code} (${codes})` : cause.code;
}

/**
 * An open's or a click's details, as the outbox recorded them in the event's data (the API's
 * names: docs/api-decisions.md, "Opens and clicks"); empty details for any other event.
 */
export function engagementOf(event: RecordedWebhookEvent): { url: string | null; userAgent: string | null; proxy: string | null } {
  const data = (event.data ?? {}) as { url?: string; user_agent?: string | null; proxy?: string | null };
  return { url: data.url ?? null, userAgent: data.user_agent ?? null, proxy: data.proxy ?? null };
}
