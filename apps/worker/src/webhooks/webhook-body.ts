import { carriesData, formatMailbox } from '@mailer/domain';
import type { LeasedWebhook } from '@mailer/db';

/**
 * The body of a webhook (docs/api-decisions.md, "Webhooks"), composed from the event as it
 * was recorded, so that every retry sends the same bytes. For a BCC delivery the recipient
 * was recorded as null.
 */
export function webhookBody(event: LeasedWebhook['event']): string {
  const data =
    carriesData(event.type)
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
        };
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data });
}
