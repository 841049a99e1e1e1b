import type { DeliveryCause, WebhookEventType } from '@mailer/domain';
import { booleansParam, timestampsParam, type Database, type Queryable, type Row, type Statement } from '../database';
import { lockWebhookDeliveries, lockWebhookEndpoints } from '../lock-order';
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
    /** The message's From (address and display name), subject and tags, for email events. */
    fromEmail: string | null;
    fromName: string | null;
    subject: string | null;
    tags: Record<string, string> | null;
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
    tags: r.tags,
  },
});

/**
 * Leases up to `limit` due webhook deliveries of enabled endpoints, each endpoint up to
 * `perEndpoint` less what this process has in flight to it (`inFlight`), so that one slow
 * endpoint never holds the others' deliveries back; endpoints are visited in a random
 * order, so that none waits behind the others for the limit. One statement: per endpoint,
 * its due deliveries from the pending index (webhook_deliveries_pending_idx), never the
 * whole backlog; rows other senders hold are skipped. Deliveries of endpoints that are no
 * longer enabled never come here: they end `failed` when the endpoint is disabled or
 * deleted (webhookDeliveriesEnded).
 */
export async function claimWebhookDeliveries(
  db: Database,
  options: { now: Date; leaseMs: number; limit: number; perEndpoint: number; inFlight: ReadonlyMap<string, number> },
): Promise<LeasedWebhook[]> {
  const leaseExpiresAt = new Date(options.now.getTime() + options.leaseMs);
  const rows = await db`
    with due as (
      select d.id
        from (select id from webhook_endpoints where status = 'enabled' and deleted_at is null order by random()) w
       cross join lateral (
             select d.id from webhook_deliveries d
              where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${options.now}
                and (d.lease_expires_at is null or d.lease_expires_at <= ${options.now})
              order by d.next_attempt_at
              limit greatest(0, ${options.perEndpoint}::int - coalesce(
                      (select b.n from unnest(${[...options.inFlight.keys()]}::text[], ${[...options.inFlight.values()]}::int[]) as b(id, n) where b.id = w.id), 0))
                for update of d skip locked) d
       limit ${options.limit}
    ), leased as (
      update webhook_deliveries d set lease_expires_at = ${leaseExpiresAt} from due where d.id = due.id
      returning d.id, d.endpoint_id, d.event_id, d.attempt_count
    )
    select d.id, d.endpoint_id, d.attempt_count, w.url, w.secret_sealed, w.failing_since,
           case when w.previous_secret_expires_at > ${options.now} then w.previous_secret_sealed end as previous_secret_sealed,
           e.id as event_id, e.type, e.occurred_at, e.email_id, e.recipient, e.recipient_kind, e.status, e.cause,
           e.attempt_count as event_attempt_count, e.data, m.from_email, m.from_name, m.subject, m.tags
      from leased d
      join webhook_endpoints w on w.id = d.endpoint_id
      join webhook_events e on e.id = d.event_id
      left join emails m on m.id = e.email_id`;
  return rows.map(toLeased);
}

/**
 * An endpoint disabled (by its owner or after WEBHOOK_DISABLE_AFTER of failures) or
 * deleted: its pending deliveries end `failed`, unsent (docs/api-decisions.md, "Webhooks"),
 * in the statement that changes the endpoint (a data-modifying CTE over `endpointIds`, a
 * query of their ids). One in flight then is recorded as its attempt ends, and stays
 * `failed` unless the attempt succeeded (recordWebhookAttempts).
 */
export function endPendingWebhookDeliveries(db: Queryable, endpointIds: Statement) {
  return db`
    update webhook_deliveries set status = 'failed', lease_expires_at = null
     where endpoint_id in (${endpointIds}) and status = 'pending'`;
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
 * endpoint's failing streak (cleared by a success, started by a failure) and status. The
 * endpoints are locked before the deliveries (the lock order): a change of an endpoint locks
 * it and then ends its pending deliveries, and the other order deadlocked against it.
 */
export async function recordWebhookAttempts(db: Database, results: readonly WebhookAttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  const status = (r: WebhookAttemptResult) => (r.succeeded ? 'succeeded' : r.nextAttemptAt ? 'pending' : 'failed');
  await inTransaction(db, (tx) =>
    tx.commit(
      ...lockWebhookEndpoints(tx, results.map((r) => r.endpointId)),
      ...lockWebhookDeliveries(tx, results.map((r) => r.deliveryId)),
      tx.sql`
        update webhook_deliveries d
           set status = case when x.status = 'pending' and d.status = 'failed' then 'failed' else x.status end, attempt_count = d.attempt_count + 1, last_attempt_at = x.at, last_response_status = x.response_status,
               next_attempt_at = coalesce(x.next_attempt_at, d.next_attempt_at), lease_expires_at = null
          from unnest(${results.map((r) => r.deliveryId)}::text[], ${results.map(status)}::text[], ${timestampsParam(results.map((r) => r.at))}::text[]::timestamptz[],
                      ${results.map((r) => r.responseStatus)}::int[], ${timestampsParam(results.map((r) => r.nextAttemptAt ?? null))}::text[]::timestamptz[])
               as x(id, status, at, response_status, next_attempt_at)
         where d.id = x.id`,
      // Per endpoint: any success clears the streak; otherwise a failure starts it, or ends the endpoint.
      tx.sql`
        with changed as (
          update webhook_endpoints w
             set failing_since = case when x.succeeded then null else coalesce(w.failing_since, x.at) end,
                 status = case when x.disables then 'disabled' else w.status end,
                 updated_at = case when x.disables and w.status <> 'disabled' then x.at else w.updated_at end
            from (select endpoint_id, bool_or(succeeded) as succeeded, bool_or(disables) as disables, min(at) as at
                    from unnest(${results.map((r) => r.endpointId)}::text[], ${booleansParam(results.map((r) => r.succeeded))}::text[]::boolean[],
                                ${booleansParam(results.map((r) => r.disablesEndpoint))}::text[]::boolean[], ${timestampsParam(results.map((r) => r.at))}::text[]::timestamptz[])
                         as r(endpoint_id, succeeded, disables, at)
                   group by endpoint_id) x
           where w.id = x.endpoint_id
          returning w.id, w.status
        ), ended as (${endPendingWebhookDeliveries(tx.sql, tx.sql`select id from changed where status = 'disabled'`)})
        select count(*) from changed`,
    ),
  );
}
