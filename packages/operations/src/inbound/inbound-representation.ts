import { z } from 'zod';
import type { InboundEmail, InboundRoute } from '@mailer/db';
import { timestampSchema } from '../timestamp';

const verdict = (what: string) =>
  z.looseObject({ result: z.string().meta({ description: `${what}: \`pass\`, \`fail\`, \`softfail\`, \`neutral\`, \`none\`, \`temperror\` or \`permerror\` (mailauth's verdict).` }) });

export const inboundAuthSchema = z
  .object({
    spf: verdict('SPF of the MAIL FROM domain (or the HELO name) for the connecting address').extend({ domain: z.string().nullable() }),
    dkim: verdict('DKIM: `pass` when a signature verifies').extend({
      signatures: z.array(z.object({ domain: z.string().nullable(), selector: z.string().nullable(), result: z.string() })),
    }),
    dmarc: verdict('DMARC of the From domain').extend({ domain: z.string().nullable(), policy: z.string().nullable() }),
    arc: verdict('ARC chain'),
  })
  .meta({ id: 'InboundAuthentication', description: 'What the service found when it received the message (mailauth: SPF, DKIM, DMARC, ARC).' });

export const inboundAttachmentSchema = z.object({
  id: z.string().meta({ description: 'iat_…: GET /v1/inbound/emails/{id}/attachments/{attachment_id} answers its bytes.' }),
  filename: z.string().nullable(),
  content_type: z.string(),
  size: z.number().int(),
  content_id: z.string().nullable().meta({ description: 'Its Content-ID (without angle brackets) when the part has one, for `cid:` references.' }),
}).meta({ id: 'InboundAttachment' });

const summaryShape = {
  id: z.string().meta({ description: 'inb_…' }),
  from: z.string().nullable().meta({ description: 'The From header: `Name <address>` or `address`.' }),
  to: z.array(z.string()).meta({ description: 'The To header\'s addresses.' }),
  recipients: z.array(z.string()).meta({ description: 'The envelope recipients this message was received for (RCPT TO), lower case.' }),
  subject: z.string().nullable(),
  received_at: timestampSchema,
  route_id: z.string().meta({ description: 'rte_…: the route that matched its recipients.' }),
  attachments: z.array(inboundAttachmentSchema),
  auth: inboundAuthSchema,
};

export const inboundEmailSummarySchema = z.object({ ...summaryShape, size: z.number().int().meta({ description: 'Bytes of the raw message.' }) }).meta({ id: 'InboundEmailSummary' });

export const inboundEmailSchema = z
  .object({
    ...summaryShape,
    size: z.number().int().meta({ description: 'Bytes of the raw message.' }),
    mail_from: z.string().meta({ description: 'The envelope sender (MAIL FROM); empty for a null sender.' }),
    cc: z.array(z.string()),
    reply_to: z.array(z.string()),
    text: z.string().nullable(),
    html: z.string().nullable(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).meta({ description: 'Every header field, in order, unfolded.' }),
  })
  .meta({ id: 'InboundEmail' });

/** The data of an `email.received` webhook event (docs/api-decisions.md, "Inbound mail"). */
export const emailReceivedDataSchema = z.object(summaryShape).meta({ id: 'EmailReceivedData' });

const attachments = (email: InboundEmail) => email.message.attachments.map(({ id, filename, content_type, size, content_id }) => ({ id, filename, content_type, size, content_id }));

/** The event's data: the envelope of the message, never its content. */
export const toEmailReceivedData = (email: InboundEmail): z.infer<typeof emailReceivedDataSchema> => ({
  id: email.id,
  from: email.message.from,
  to: email.message.to,
  recipients: email.recipients,
  subject: email.message.subject,
  received_at: email.createdAt.toISOString(),
  route_id: email.routeId,
  attachments: attachments(email),
  auth: email.auth as z.infer<typeof inboundAuthSchema>,
});

export const toInboundEmailSummary = (email: InboundEmail): z.infer<typeof inboundEmailSummarySchema> => ({ ...toEmailReceivedData(email), size: email.size });

export const toInboundEmail = (email: InboundEmail): z.infer<typeof inboundEmailSchema> => ({
  ...toInboundEmailSummary(email),
  mail_from: email.mailFrom,
  cc: email.message.cc,
  reply_to: email.message.reply_to,
  text: email.message.text,
  html: email.message.html,
  headers: email.message.headers,
});

export const inboundRouteSchema = z
  .object({
    id: z.string().meta({ description: 'rte_…' }),
    pattern: z.string().meta({ description: '`address@host` or `*@host`, the local part in lower case, the host as A-labels.' }),
    domain_id: z.string().meta({ description: 'dom_…: the domain whose name or receiving subdomain is the host.' }),
    webhook_id: z.string().nullable().meta({ description: 'wh_…: the endpoint its `email.received` events go to; null: every endpoint subscribed to `email.received`.' }),
    enabled: z.boolean(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'InboundRoute' });

export const toInboundRoute = (route: InboundRoute): z.infer<typeof inboundRouteSchema> => ({
  id: route.id,
  pattern: route.pattern,
  domain_id: route.domainId,
  webhook_id: route.webhookId,
  enabled: route.enabled,
  created_at: route.createdAt.toISOString(),
  updated_at: route.updatedAt.toISOString(),
});
