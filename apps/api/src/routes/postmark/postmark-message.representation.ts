import { z } from 'zod';
import { formatMailbox } from '@mailer/domain';
import { type EmailDetail, type EmailSummary, iso } from '@mailer/operations';
import { POSTMARK_STREAM_IDS, postmarkStreamOf } from './postmark-streams';

const recipient = z.object({ Email: z.string(), Name: z.null() });

export const postmarkMessageSchema = z
  .object({
    MessageID: z.string(),
    MessageStream: z.enum(POSTMARK_STREAM_IDS),
    From: z.string(),
    To: z.array(recipient),
    Cc: z.array(recipient),
    Bcc: z.array(recipient).meta({ description: 'Always empty: BCC recipients are never shown.' }),
    Recipients: z.array(z.string()),
    Subject: z.string(),
    Tag: z.string().nullable(),
    Metadata: z.record(z.string(), z.string()),
    Attachments: z.array(z.string()),
    ReceivedAt: z.string().meta({ format: 'date-time' }),
    Status: z.enum(['Queued', 'Sent', 'Processed']).meta({ description: 'Queued until every delivery is terminal; Sent when all were accepted; Processed otherwise.' }),
    TrackOpens: z.boolean().meta({ description: "/v1's `track.opens`." }),
    TrackLinks: z.enum(['None', 'HtmlOnly']).meta({ description: "/v1's `track.clicks`: only the HTML part's links are rewritten." }),
    Sandboxed: z.boolean().meta({ description: 'Sent with the test key.' }),
  })
  .meta({ id: 'PostmarkOutboundMessage' });

const EVENT_TYPES = { accepted: 'Delivered', bounced: 'Bounced', deferred: 'Transient', failed: 'Bounced' } as const;

export const postmarkMessageDetailsSchema = postmarkMessageSchema
  .extend({
    TextBody: z.null().meta({ description: 'Content is never returned.' }),
    HtmlBody: z.null().meta({ description: 'Content is never returned.' }),
    Body: z.null().meta({ description: 'Content is never returned.' }),
    MessageEvents: z.array(
      z.object({ Recipient: z.string(), Type: z.enum(['Delivered', 'Bounced', 'Transient']), ReceivedAt: z.string().meta({ format: 'date-time' }), Details: z.record(z.string(), z.string()) }),
    ),
  })
  .meta({ id: 'PostmarkOutboundMessageDetails' });

function status(email: EmailSummary): z.infer<typeof postmarkMessageSchema>['Status'] {
  if (email.completedAt === null) return 'Queued';
  return email.status === 'accepted' ? 'Sent' : 'Processed';
}

/** A /v1 message as Postmark's outbound message search shows one (its Tag is the tag `tag`, its Metadata the other tags). */
export function toPostmarkMessage(email: EmailSummary): z.infer<typeof postmarkMessageSchema> {
  const { tag = null, ...metadata } = email.tags;
  return {
    MessageID: email.id,
    MessageStream: postmarkStreamOf(email.type),
    From: formatMailbox(email.fromEmail, email.fromName),
    To: email.to.map((Email) => ({ Email, Name: null })),
    Cc: email.cc.map((Email) => ({ Email, Name: null })),
    Bcc: [],
    Recipients: [...email.to, ...email.cc],
    Subject: email.subject,
    Tag: tag,
    Metadata: metadata,
    Attachments: [],
    ReceivedAt: iso(email.createdAt),
    Status: status(email),
    TrackOpens: email.track.opens,
    TrackLinks: email.track.clicks ? 'HtmlOnly' : 'None',
    Sandboxed: email.test,
  };
}

/** With the message's delivery events in Postmark's types, to and cc recipients only (toEmailDetail's rule). */
export function toPostmarkMessageDetails(detail: EmailDetail): z.infer<typeof postmarkMessageDetailsSchema> {
  const shown = new Set([...detail.email.to, ...detail.email.cc].map((a) => a.toLowerCase()));
  return {
    ...toPostmarkMessage(detail.email),
    TextBody: null,
    HtmlBody: null,
    Body: null,
    MessageEvents: detail.events.flatMap((e) => {
      const type = EVENT_TYPES[e.type as keyof typeof EVENT_TYPES];
      if (!type || !e.recipient || !shown.has(e.recipient.toLowerCase())) return [];
      return [{ Recipient: e.recipient, Type: type, ReceivedAt: iso(e.at), Details: e.cause ? { Summary: e.cause.code as string } : ({} as Record<string, string>) }];
    }),
  };
}
