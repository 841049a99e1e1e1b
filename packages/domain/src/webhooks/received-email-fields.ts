import type { InboundMessage } from '../inbound/inbound-message';
import type { RecordedWebhookEvent } from './recorded-webhook-event';

/** What an `email.received` event records (emailReceivedData in @mailer/operations): the part the foreign formats read. */
export interface ReceivedEmailData {
  id: string;
  from: string | null;
  to: string[];
  subject: string | null;
  recipients: string[];
  received_at: string;
}

/**
 * The event's data and the message as read, for the formats that carry more than the default
 * one; a message already purged (RETENTION_DAYS) is what the data still says of it.
 */
export function receivedEmail(event: RecordedWebhookEvent): { data: ReceivedEmailData; message: InboundMessage } {
  const data = event.data as ReceivedEmailData;
  const purged = { from: data.from, to: data.to, cc: [], reply_to: [], subject: data.subject, text: null, html: null, headers: [], attachments: [] };
  return { data, message: event.inbound ?? purged };
}

/** A header field's first value, as the message has it (case ignored). */
export const headerValue = (message: InboundMessage, name: string): string | undefined =>
  message.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;

/** `Name <address>` or `address`, read leniently (received mail is not held to the sending rules): the address and the name. */
export function splitMailbox(mailbox: string): { email: string; name: string } {
  const match = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(mailbox);
  if (!match) return { email: mailbox.trim(), name: '' };
  const name = match[1]!.replace(/^"(.*)"$/s, '$1').replace(/\\(.)/gs, '$1');
  return { email: match[2]!.trim(), name };
}
