import type { DeliveryCause, WebhookEventType } from '@mailer/domain';
import { booleansParam, timestampsParam, type Database, type Row } from '../database';
import { inTransaction } from '../transaction';

/** A webhook delivery a sender owns until `leaseExpiresAt`: what to send, where, signed with which secrets. */
export interface LeasedWebhook {
  id: string;
  endpointId: string;
  url: string;
  secretsSealed: string[];
  failingSince: Date | null;
  attemptCount: number;
  event: {
    id: string;
    type: WebhookEventType;
    occurredAt: Date;
    emailId: string | null;
    recipient: string | null;
    recipientKind: 'to' | 'cc' | 'bcc' | null;
    status: string | null;
    cause: DeliveryCause | null;
    attemptCount: number | null;
    data: unknown;
    /** The message's From (address and display name) and subject, for email events. */
    fromEmail: string | null;
    fromName: string | null;
    subject: string | null;
  };
}

const toLeased = (r: Row): LeasedWebhook => ({
  id: r.id,
  endpointId: r.endpoint_id,
  url: r.url,
  secretsSealed: [r.secret_sealed, ...(r.previous_secret_sealed ? [r.previous_secret_sealed] : [])],
  failingSince: r.failing_since,
  attemptCount: r.attempt_count,
  event: {
    id: r.event_id,
    type: r.type,
    occurredAt: r.occurred_at,
    emailId: r.email_id,
    recipient: r.recipient,
    recipientKind: r.recipient_kind,
    status: r.status,
    cause: r.cause,
    attemptCount: r.event_attempt_count,
    data: r.data,
    fromEmail: r.from_email,
    fromName: r.from_name,
    subject: r.subject,
  },
});

/**
 * Leases up to `limit` due webhook deliveries of enabled endpoints, at most `perEndpoint`
 * of any one endpoint and none of the endpoints in `busy` (at their cap in this process),
 * so that one slow endpoint never holds the others' deliveries back. Deliveries whose
 * endpoint was deleted end `failed` here, unsent. Rows other senders hold are skipped.
 */
export async function claimWebhookDeliveries(
  db: Database,
  options: { now: Date; leaseMs: number; limit: number; perEndpoint: number; busy: readonly string[] },
): Promise<LeasedWebhook[]> {
  return inTransaction(db, async (tx) => {
    const [candidates] = await tx.send(tx.sql`
      select id from webhook_deliveries
       where id = any(array(
               select id from (
                 select d.id, row_number() over (partition by d.endpoint_id order by d.next_attempt_at) as n
                   from webhook_deliveries d
                  where d.status = 'pending' and d.next_attempt_at <= ${options.now}
                    and (d.lease_expires_at is null or d.lease_expires_at <= ${options.now})
                    and d.endpoint_id <> all(${options.busy as string[]}::text[])) ranked
                where n <= ${options.perEndpoint}
                limit ${options.limit}))
       order by id
         for update skip locked`);
    const ids = candidates.map((r) => r.id as string);
    if (ids.length === 0) return [];
    const leaseExpiresAt = new Date(options.now.getTime() + options.leaseMs);
    const [, , leased] = await tx.commit(
      tx.sql`
        update webhook_deliveries d set status = 'failed', lease_expires_at = null
          from webhook_endpoints w
         where d.id = any(${ids}::text[]) and w.id = d.endpoint_id and (w.deleted_at is not null or w.status <> 'enabled')`,
      tx.sql`update webhook_deliveries set lease_expires_at = ${leaseExpiresAt} where id = any(${ids}::text[]) and status = 'pending'`,
      tx.sql`
        select d.id, d.endpoint_id, d.attempt_count, w.url, w.secret_sealed, w.failing_since,
               case when w.previous_secret_expires_at > ${options.now} then w.previous_secret_sealed end as previous_secret_sealed,
               e.id as event_id, e.type, e.occurred_at, e.email_id, e.recipient, e.recipient_kind, e.status, e.cause,
               e.attempt_count as event_attempt_count, e.data, m.from_email, m.from_name, m.subject
          from webhook_deliveries d
          join webhook_endpoints w on w.id = d.endpoint_id
          join webhook_events e on e.id = d.event_id
          left join emails m on m.id = e.email_id
         where d.id = any(${ids}::text[]) and d.status = 'pending'`,
    );
    return leased.map(toLeased);
  });
}

/** What one attempt of a webhook delivery came to, already through the retry policy. */
export interface WebhookAttemptResult {
  deliveryId: string;
  endpointId: string;
  at: Date;
  succeeded: boolean;
  responseStatus: number | null;
  /** For a failed attempt: when the next one is due, or undefined when the delivery is failed for good. */
  nextAttemptAt?: Date;
  /** Whether this failure disables the endpoint (its deliveries have all failed for WEBHOOK_DISABLE_AFTER). */
  disablesEndpoint: boolean;
}

/**
 * Records attempts: each delivery's outcome, attempt count and next attempt, and its
 * endpoint's failing streak (cleared by a success, started by a failure) and status.
 */
export async function recordWebhookAttempts(db: Database, results: readonly WebhookAttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  const status = (r: WebhookAttemptResult) => (r.succeeded ? 'succeeded' : r.nextAttemptAt ? 'pending' : 'failed');
  await inTransaction(db, (tx) =>
    tx.commit(
      tx.sql`
        update webhook_deliveries d
           set status = x.status, attempt_count = d.attempt_count + 1, last_attempt_at = x.at, last_response_status = x.response_status,
               next_attempt_at = coalesce(x.next_attempt_at, d.next_attempt_at), lease_expires_at = null
          from unnest(${results.map((r) => r.deliveryId)}::text[], ${results.map(status)}::text[], ${timestampsParam(results.map((r) => r.at))}::text[]::timestamptz[],
                      ${results.map((r) => r.responseStatus)}::int[], ${timestampsParam(results.map((r) => r.nextAttemptAt ?? null))}::text[]::timestamptz[])
               as x(id, status, at, response_status, next_attempt_at)
         where d.id = x.id`,
      // Per endpoint: any success clears the streak; otherwise a failure starts it, or ends the endpoint.
      tx.sql`
        update webhook_endpoints w
           set failing_since = case when x.succeeded then null else coalesce(w.failing_since, x.at) end,
               status = case when x.disables then 'disabled' else w.status end,
               updated_at = case when x.disables and w.status <> 'disabled' then x.at else w.updated_at end
          from (select endpoint_id, bool_or(succeeded) as succeeded, bool_or(disables) as disables, min(at) as at
                  from unnest(${results.map((r) => r.endpointId)}::text[], ${booleansParam(results.map((r) => r.succeeded))}::text[]::boolean[],
                              ${booleansParam(results.map((r) => r.disablesEndpoint))}::text[]::boolean[], ${timestampsParam(results.map((r) => r.at))}::text[]::timestamptz[])
                       as r(endpoint_id, succeeded, disables, at)
                 group by endpoint_id) x
         where w.id = x.endpoint_id`,
    ),
  );
}
