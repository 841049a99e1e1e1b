import { z } from 'zod';
import { type InboundEmail, iso, timestampSchema } from '@mailer/operations';

const nullableList = z.array(z.string()).nullable();

const receivedShape = {
  id: z.string().meta({ description: 'inb_…: the same message at GET /v1/inbound/emails/{id}.' }),
  to: z.array(z.string()),
  from: z.string().nullable().meta({ description: 'The From header: `Name <address>` or `address`.' }),
  created_at: timestampSchema.meta({ description: 'When it was received.' }),
  subject: z.string().nullable(),
  bcc: z.null().meta({ description: 'A received message names no BCC recipients.' }),
  cc: nullableList,
  reply_to: nullableList,
  received_for: z.array(z.string()).meta({ description: 'The envelope recipients it was received for (RCPT TO).' }),
  message_id: z.string().nullable().meta({ description: 'Its Message-ID header field.' }),
  attachments: z.array(
    z.object({
      id: z.string().meta({ description: 'iat_…: its bytes at GET /v1/inbound/emails/{id}/attachments/{attachment_id}.' }),
      filename: z.string().nullable(),
      size: z.number().int(),
      content_type: z.string(),
      content_id: z.string().nullable(),
      content_disposition: z.null().meta({ description: 'Not kept.' }),
    }),
  ),
};

export const resendReceivedEmailSummarySchema = z.object(receivedShape).meta({ id: 'ResendReceivedEmailSummary' });

export const resendReceivedEmailSchema = z
  .object({
    object: z.literal('email'),
    ...receivedShape,
    html: z.string().nullable().meta({ description: 'As received: inline images keep their `cid:` references.' }),
    text: z.string().nullable(),
    headers: z.record(z.string(), z.string()).meta({ description: 'Each field by its name as first written; a repeated field\'s values joined by a newline.' }),
    raw: z.null().meta({ description: 'The raw message is at GET /v1/inbound/emails/{id}/raw.' }),
  })
  .meta({ id: 'ResendReceivedEmail' });

const listsOrNull = (list: string[]) => (list.length > 0 ? list : null);

/** A received message as Resend's receiving list shows one. */
export function toResendReceivedEmailSummary(email: InboundEmail): z.infer<typeof resendReceivedEmailSummarySchema> {
  const { message } = email;
  return {
    id: email.id,
    to: message.to,
    from: message.from,
    created_at: iso(email.createdAt),
    subject: message.subject,
    bcc: null,
    cc: listsOrNull(message.cc),
    reply_to: listsOrNull(message.reply_to),
    received_for: email.recipients,
    message_id: message.headers.find((h) => h.name.toLowerCase() === 'message-id')?.value ?? null,
    attachments: message.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size, content_type: a.content_type, content_id: a.content_id, content_disposition: null })),
  };
}

/** A received message as Resend's GET /emails/receiving/{id} shows one: with its content and header fields. */
export function toResendReceivedEmail(email: InboundEmail): z.infer<typeof resendReceivedEmailSchema> {
  const headers: Record<string, string> = {};
  const names = new Map<string, string>();
  for (const { name, value } of email.message.headers) {
    const key = names.get(name.toLowerCase()) ?? name;
    names.set(name.toLowerCase(), key);
    headers[key] = key in headers ? `${headers[key]}\n${value}` : value;
  }
  return { object: 'email', ...toResendReceivedEmailSummary(email), html: email.message.html, text: email.message.text, headers, raw: null };
}
