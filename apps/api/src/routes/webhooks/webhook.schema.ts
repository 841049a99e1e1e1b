import { z } from 'zod';
import { SENT_WEBHOOK_EVENT_TYPES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from '@mailer/domain';
import { timestampSchema, type WebhookDeliveryRecord, type WebhookEndpoint } from '@mailer/operations';
import { pageQuerySchema } from '../../http/pagination';

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: () => `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .min(1, 'must name at least one event type')
  .transform((list) => [...new Set(list)])
  .meta({ description: 'The event types sent to it; all of them when omitted at creation.' });

const description = z.string().max(500, 'must be at most 500 characters').nullable();

/** The URL's rules are checked by the route against the configuration and the format (webhookUrlProblem). */
const url = z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }).meta({
  description:
    'https:// and a public host; the addresses it resolves to are checked again at every connection. No redirects are followed. ' +
    'A postmark-format endpoint may carry HTTP Basic credentials (`https://user:password@host/…`): they are sent as `Authorization: Basic`, ' +
    'stored sealed, and shown with the password as `********` (a PATCH naming the URL as shown keeps them).',
});

const format = z.enum(WEBHOOK_FORMATS, { error: () => `must be one of ${WEBHOOK_FORMATS.join(', ')}` }).meta({
  description:
    'The shape events are sent in: `default` (this API\'s), `resend` (Resend\'s event names and payloads, signed also under svix-* headers) or ' +
    '`postmark` (Postmark\'s Delivery, Bounce and SpamComplaint records). An event type a format has no counterpart for is not sent to it.',
});

export const createWebhookBodySchema = z
  .strictObject({ url, events: events.optional(), description: description.optional(), format: format.optional() })
  .meta({ id: 'CreateWebhookRequest' });
export const updateWebhookBodySchema = z.strictObject({
  url: url.optional(),
  format: format.optional(),
  events: events.optional(),
  description: description.optional(),
  status: z.enum(['enabled', 'disabled'], { error: () => 'must be one of enabled, disabled' }).optional(),
}).meta({ id: 'UpdateWebhookRequest' });
export const listWebhooksQuerySchema = pageQuerySchema;

/** The endpoint representation (docs/api-decisions.md, "Webhooks"); the secret is shown only on creation and rotation. */
export const webhookSchema = z.object({
  id: z.string().meta({ description: 'wh_…' }),
  url: z.string().meta({ description: 'With a password masked as `********`.' }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  format: z.enum(WEBHOOK_FORMATS),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']).meta({ description: '`disabled` by PATCH, or by the service after its deliveries failed for WEBHOOK_DISABLE_AFTER.' }),
  created_at: timestampSchema,
  updated_at: timestampSchema,
}).meta({ id: 'Webhook' });

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().meta({ description: '`whsec_…`: the Standard Webhooks signing secret, shown only here and on rotation.' }),
}).meta({ id: 'CreatedWebhook' });

export const webhookDeliverySchema = z.object({
  id: z.string(),
  event_id: z.string().meta({ description: 'evt_…: the `webhook-id` header, the same on every retry.' }),
  type: z.enum(SENT_WEBHOOK_EVENT_TYPES),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  last_attempt_at: timestampSchema.nullable(),
  last_response_status: z.number().int().nullable(),
  next_attempt_at: timestampSchema.nullable(),
}).meta({ id: 'WebhookDelivery' });

/** `url` is the URL as shown (shownUrl): the route opens the credentials to show their user name. */
export const serializeWebhook = (w: WebhookEndpoint, url: string): z.infer<typeof webhookSchema> => ({
  id: w.id,
  url,
  events: w.events,
  format: w.format,
  description: w.description,
  status: w.status,
  created_at: w.createdAt.toISOString(),
  updated_at: w.updatedAt.toISOString(),
});

export const serializeWebhookDelivery = (d: WebhookDeliveryRecord): z.infer<typeof webhookDeliverySchema> => ({
  id: d.id,
  event_id: d.eventId,
  type: d.type,
  status: d.status,
  attempt_count: d.attemptCount,
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  last_response_status: d.lastResponseStatus,
  next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
});
