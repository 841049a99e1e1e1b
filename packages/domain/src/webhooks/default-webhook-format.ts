import { formatMailbox } from '../emails/from-address';
import { engagementOf, type RecordedWebhookEvent } from './recorded-webhook-event';
import { carriesData, SENT_WEBHOOK_EVENT_TYPES, type SentWebhookEventType } from './webhook-events';

/** An open's or a click's own fields: the user agent and image proxy, and a click's URL. */
function engagementFields(event: RecordedWebhookEvent): object {
  if (event.type !== 'email.opened' && event.type !== 'email.clicked') return {};
  const { url, userAgent, proxy } = engagementOf(event);
  return { ...(event.type === 'email.clicked' ? { url } : {}), user_agent: userAgent, proxy };
}

/** Section 11's body: `{type, timestamp, data}` (docs/api-decisions.md, "Webhooks"). */
function defaultBody(event: RecordedWebhookEvent): object {
  const data = carriesData(event.type)
    ? event.data
    : {
        email_id: event.emailId,
        recipient: event.recipient,
        recipient_kind: event.recipientKind,
        status: event.status,
        cause: event.cause,
        attempt_count: event.attemptCount,
        from: event.fromEmail === null ? null : formatMailbox(event.fromEmail, event.fromName),
        subject: event.subject,
        tags: event.tags ?? {},
        test: event.test === true,
        ...engagementFields(event),
      };
  return { type: event.type, timestamp: event.occurredAt.toISOString(), data };
}

/** Every event type, in its own name. */
export const DEFAULT_WEBHOOK_SHAPES = Object.fromEntries(SENT_WEBHOOK_EVENT_TYPES.map((type) => [type, defaultBody])) as Record<
  SentWebhookEventType,
  (event: RecordedWebhookEvent) => object
>;
