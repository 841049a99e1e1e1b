import { z } from 'zod';
import type { EmailDetail, EmailSummary } from '@mailer/db';
import { ATTEMPT_OUTCOMES, CAUSE_CODES, DELIVERY_STATUSES, EMAIL_TYPES, formatMailbox, type DeliveryCause } from '@mailer/domain';
import { iso, timestampSchema as timestamp } from '../timestamp';

const status = z.enum(DELIVERY_STATUSES);

export const causeSchema = z
  .object({
    // A string rather than an enum, so that clients keep working when the vocabulary grows.
    code: z.string().meta({ description: `One of: ${CAUSE_CODES.map((c) => `\`${c}\``).join(', ')} (docs/api-decisions.md, "Delivery", Causes).` }),
    permanent: z.boolean(),
    smtp_code: z.number().int().nullable(),
    enhanced_status: z.string().nullable(),
  })
  .meta({ id: 'Cause', description: 'A normalized delivery cause; never the remote reply text.' });

export const emailSummarySchema = z.object({
  id: z.string(),
  status,
  type: z.enum(EMAIL_TYPES).meta({ description: 'The stream: `transactional` or `broadcast`.' }),
  unsubscribe: z.boolean().meta({ description: 'Sent with `unsubscribe: true`: its deliveries carry the List-Unsubscribe headers (a broadcast message always does).' }),
  track: z
    .object({ opens: z.boolean(), clicks: z.boolean() })
    .meta({
      description:
        "Opens and clicks as decided at intake: the request's `track`, else the domain's `tracking` then; both false for a test message, `clicks` false without an HTML part.",
    }),
  from: z.string().meta({ description: '`Display Name <address>` when the From header has a display name, else the address.' }),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc_count: z.number().int(),
  subject: z.string(),
  tags: z.record(z.string(), z.string()).meta({ description: 'The tags the message was sent with.' }),
  test: z.boolean().meta({
    description: 'Sent with the test key (svc_test_…): its outcomes are simulated and nothing left the service. Each key sees only its own mode.',
  }),
  created_at: timestamp,
  updated_at: timestamp,
}).meta({ id: 'Email' });

export const emailDetailSchema = emailSummarySchema.extend({
  reply_to: z.array(z.string()),
  scheduled_at: timestamp.nullable().meta({ description: 'When delivery was asked for (scheduled_at of the request), or null.' }),
  template: z
    .object({ id: z.string().meta({ description: 'tpl_…' }), version: z.number().int() })
    .nullable()
    .meta({ description: 'The template and version the message was rendered from at intake, or null when it was sent with its content.' }),
  cause: causeSchema.nullable(),
  deliveries: z.array(
    z.object({ recipient: z.string(), kind: z.enum(['to', 'cc']), status, attempt_count: z.number().int(), cause: causeSchema.nullable(), updated_at: timestamp }),
  ),
  bcc_deliveries: z.object(Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof DELIVERY_STATUSES)[number], z.ZodNumber>),
  attempts: z.array(
    z.object({
      number: z.number().int(),
      started_at: timestamp,
      ended_at: timestamp,
      outcome: z.enum(ATTEMPT_OUTCOMES),
      recipients: z.array(z.string()),
      bcc_recipients: z.number().int(),
      tls: z.boolean(),
      cause: causeSchema.nullable(),
    }),
  ),
  events: z.array(
    z.object({
      type: z.string().meta({
        description:
          '`queued`, then per recipient `sending`, `deferred`, `accepted`, `bounced`, `failed`; from the return path also ' +
          '`bounced` after `accepted` (a DSN), `delayed` and `complained`; `unsubscribed` when the recipient used the List-Unsubscribe link or address; ' +
          '`opened` and `clicked` for each fetch of the open pixel and each tracked link followed (docs/api-decisions.md, "Opens and clicks").',
      }),
      at: timestamp,
      recipient: z.string().optional(),
      cause: causeSchema.optional(),
      url: z.string().optional().meta({ description: '`clicked`: the original URL of the link.' }),
      user_agent: z.string().nullable().optional().meta({ description: '`opened` and `clicked`: the mail client\'s user agent.' }),
      proxy: z
        .enum(['apple_mpp', 'gmail'])
        .nullable()
        .optional()
        .meta({ description: '`opened` and `clicked`: the image proxy it came through: Apple Mail Privacy Protection\'s prefetch, or Gmail\'s image proxy.' }),
    }),
  ),
  attachments: z.array(z.object({ filename: z.string(), content_type: z.string(), size: z.number().int(), inline: z.boolean() })),
  timestamps: z.object({ created_at: timestamp, updated_at: timestamp, completed_at: timestamp.nullable() }),
}).meta({ id: 'EmailDetail' });

/** Only the four public members of a stored cause, whatever else a writer put there. */
function cause(stored: DeliveryCause | null): z.infer<typeof causeSchema> | null {
  if (!stored) return null;
  return { code: stored.code, permanent: stored.permanent, smtp_code: stored.smtp_code ?? null, enhanced_status: stored.enhanced_status ?? null };
}

export function toEmailSummary(email: EmailSummary): z.infer<typeof emailSummarySchema> {
  return {
    id: email.id,
    status: email.status,
    type: email.type,
    unsubscribe: email.unsubscribe,
    track: email.track,
    from: formatMailbox(email.fromEmail, email.fromName),
    to: email.to,
    cc: email.cc,
    bcc_count: email.bccCount,
    subject: email.subject,
    tags: email.tags,
    test: email.test,
    created_at: iso(email.createdAt),
    updated_at: iso(email.updatedAt),
  };
}

/**
 * The detail view. Whatever the stored rows hold, nothing derived from a BCC address is
 * shown: BCC deliveries only as counts, and recipients of attempts and events only when
 * they are one of the message's to/cc addresses.
 */
export function toEmailDetail(detail: EmailDetail): z.infer<typeof emailDetailSchema> {
  const { email } = detail;
  const shown = new Set([...email.to, ...email.cc].map((a) => a.toLowerCase()));
  const isShown = (address: string | null): address is string => address !== null && shown.has(address.toLowerCase());
  const order = (address: string) => [...email.to, ...email.cc].findIndex((a) => a.toLowerCase() === address.toLowerCase());
  const bccDeliveries = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<(typeof DELIVERY_STATUSES)[number], number>;
  for (const d of detail.deliveries) if (d.kind === 'bcc') bccDeliveries[d.status]++;
  return {
    ...toEmailSummary(email),
    reply_to: email.replyTo,
    scheduled_at: iso(email.scheduledAt),
    template: email.template,
    cause: cause(email.cause),
    deliveries: detail.deliveries
      .filter((d): d is typeof d & { kind: 'to' | 'cc' } => d.kind !== 'bcc' && isShown(d.recipient))
      .sort((a, b) => order(a.recipient) - order(b.recipient))
      .map((d) => ({ recipient: d.recipient, kind: d.kind, status: d.status, attempt_count: d.attemptCount, cause: cause(d.cause), updated_at: iso(d.updatedAt) })),
    bcc_deliveries: bccDeliveries,
    attempts: detail.attempts.map((a) => ({
      number: a.number,
      started_at: iso(a.startedAt),
      ended_at: iso(a.endedAt),
      outcome: a.outcome,
      recipients: a.recipients.filter(isShown),
      bcc_recipients: a.bccRecipients,
      tls: a.tls,
      cause: cause(a.cause),
    })),
    events: detail.events.map((e) => {
      const eventCause = cause(e.cause);
      return {
        type: e.type,
        at: iso(e.at),
        ...(isShown(e.recipient) ? { recipient: e.recipient } : {}),
        ...(eventCause ? { cause: eventCause } : {}),
        ...(e.engagement
          ? { ...(e.engagement.url === undefined ? {} : { url: e.engagement.url }), user_agent: e.engagement.user_agent, proxy: e.engagement.proxy as 'apple_mpp' | 'gmail' | null }
          : {}),
      };
    }),
    attachments: detail.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: a.size, inline: a.contentId !== null })),
    timestamps: { created_at: iso(email.createdAt), updated_at: iso(email.updatedAt), completed_at: iso(email.completedAt) },
  };
}
