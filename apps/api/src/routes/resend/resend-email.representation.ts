import { z } from 'zod';
import { formatMailbox } from '@mailer/domain';
import { type EmailSummary, iso, timestampSchema } from '@mailer/operations';

const LAST_EVENTS = ['scheduled', 'queued', 'sent', 'delivery_delayed', 'delivered', 'bounced', 'failed', 'canceled'] as const;

export const resendEmailObjectSchema = z
  .object({
    object: z.literal('email'),
    id: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.null().meta({ description: 'BCC recipients are never shown.' }),
    reply_to: z.array(z.string()),
    subject: z.string(),
    html: z.null().meta({ description: 'Content is never returned.' }),
    text: z.null().meta({ description: 'Content is never returned.' }),
    last_event: z.enum(LAST_EVENTS).meta({ description: 'The message status of /v1 in Resend\'s event names.' }),
    scheduled_at: timestampSchema.nullable(),
    tags: z.array(z.object({ name: z.string(), value: z.string() })),
    created_at: timestampSchema,
  })
  .meta({ id: 'ResendEmail' });

/** The /v1 message status in Resend's event names: a queued message not yet due is `scheduled`, a canceled one `canceled`. */
function lastEvent(email: EmailSummary, now: Date): (typeof LAST_EVENTS)[number] {
  switch (email.status) {
    case 'queued':
      return email.scheduledAt && email.scheduledAt > now ? 'scheduled' : 'queued';
    case 'sending':
      return 'sent';
    case 'deferred':
      return 'delivery_delayed';
    case 'accepted':
      return 'delivered';
    case 'bounced':
      return 'bounced';
    case 'failed':
      return email.cause?.code === 'canceled' ? 'canceled' : 'failed';
  }
}

/** A message as Resend's GET /emails/{id} shows one; never its content or BCC recipients. */
export function toResendEmail(email: EmailSummary, now: Date): z.infer<typeof resendEmailObjectSchema> {
  return {
    object: 'email',
    id: email.id,
    from: formatMailbox(email.fromEmail, email.fromName),
    to: email.to,
    cc: email.cc,
    bcc: null,
    reply_to: email.replyTo,
    subject: email.subject,
    html: null,
    text: null,
    last_event: lastEvent(email, now),
    scheduled_at: email.scheduledAt ? iso(email.scheduledAt) : null,
    tags: Object.entries(email.tags).map(([name, value]) => ({ name, value })),
    created_at: iso(email.createdAt),
  };
}
