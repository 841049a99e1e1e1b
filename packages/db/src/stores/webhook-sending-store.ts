import type { RecordedWebhookEvent, WebhookFormat } from '@mailer/domain';
import { booleansParam, timestampsParam, type Database, type Queryable, type Row, type Statement } from '../database';
import { lockWebhookDeliveries, lockWebhookEndpoints } from '../lock-order';
import { inTransaction } from '../transaction';

/** A webhook delivery a sender owns until `leaseExpiresAt`: what to send, where, signed with which secrets. */
export interface LeasedWebhook {
  id: string;
  endpointId: string;
  /** The endpoint's account, whose stored messages the payload may read (an `email.received` attachment's bytes). */
  accountId: string;
  url: string;
  secretsSealed: string[];
  failingSince: Date | null;
  attemptCount: number;
  format: WebhookFormat;
  /** HTTP Basic `user:password`, sealed, for a postmark-format endpoint whose URL had them. */
  credentialsSealed: string | null;
  event: RecordedWebhookEvent;
  /** For `email.received`: the stored message's id while it is kept (RETENTION_DAYS), whose raw bytes findInboundRaw reads. */
  inboundEmailId: string | null;
}

const toLeased = (r: Row): LeasedWebhook => ({
  id: r.id,
  endpointId: r.endpoint_id,
  accountId: r.account_id,
  url: r.url,
  secretsSealed: [r.secret_sealed, ...(r.previous_secret_sealed ? [r.previous_secret_sealed] : [])],
  failingSince: r.failing_since,
  attemptCount: r.attempt_count,
  format: r.format,
  credentialsSealed: r.basic_auth_sealed,
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
    messageIdHeader: r.message_id_header,
    emailCreatedAt: r.email_created_at,
    test: r.test,
    inbound: r.inbound_message ?? null,
  },
  inboundEmailId: r.inbound_email_id ?? null,
});

/**
 * Leases up to `limit` due webhook deliveries of enabled endpoints for a sender of
 * `concurrency` requests at once that has `inFlight` requests open per endpoint, sharing its
 * slots between accounts (docs/api-decisions.md, "Webhooks"):
 * - an account may hold (concurrency - 1) / n of them, rounded down and at least one, where
 *   n counts the accounts with due deliveries or requests in flight here: one account never
 *   holds every slot, and once requests begun under a larger share have ended (a request
 *   lasts at most WEBHOOK_TIMEOUT_MS) a slot stays free while fewer than `concurrency`
 *   accounts are served, so another account's event is sent within a poll whatever this
 *   one's endpoints do;
 * - an endpoint may hold `perEndpoint`, so that one endpoint of an account never holds its
 *   other endpoints back;
 * - free slots go to the accounts holding fewest first (an account's next delivery ranks by
 *   what the account would then hold), ties in a random order, and within an account to its
 *   endpoints in turn, each endpoint's earliest due first.
 * One statement: per enabled endpoint, whether it has a due delivery and then its earliest
 * ones, both from the pending index (webhook_deliveries_pending_idx), never the whole
 * backlog; each endpoint's look is cut to what its account may still take, so the rows
 * ranked are bounded by the endpoints times the share. Only the chosen rows are locked;
 * those another sender holds are skipped. Deliveries of endpoints that are no longer
 * enabled never come here: they end `failed` when the endpoint is disabled or deleted
 * (endPendingWebhookDeliveries).
 */
export async function claimWebhookDeliveries(
  db: Database,
  options: { now: Date; leaseMs: number; limit: number; concurrency: number; perEndpoint: number; inFlight: ReadonlyMap<string, number> },
): Promise<LeasedWebhook[]> {
  const { now } = options;
  const leaseExpiresAt = new Date(now.getTime() + options.leaseMs);
  // Of a delivery `d`: due, and leased by no live sender.
  const unleasedDue = () => db`d.status = 'pending' and d.next_attempt_at <= ${now} and (d.lease_expires_at is null or d.lease_expires_at <= ${now})`;
  const rows = await db`
    with flight as (
      select f.id as endpoint_id, w.account_id, f.n
        from unnest(${[...options.inFlight.keys()]}::text[], ${[...options.inFlight.values()]}::int[]) as f(id, n)
        join webhook_endpoints w on w.id = f.id
    ), held as (
      select account_id, sum(n)::int as n from flight group by account_id
    ), due_endpoints as (
      select w.id, w.account_id from webhook_endpoints w
       where w.status = 'enabled' and w.deleted_at is null
         and exists (select from webhook_deliveries d where d.endpoint_id = w.id and ${unleasedDue()})
    ), share as (
      select greatest(1, (${options.concurrency}::int - 1) / nullif(count(*), 0))::int as places
        from (select account_id from due_endpoints union select account_id from flight) served
    ), candidates as (
      select d.id, e.account_id, coalesce(h.n, 0) as account_held,
             row_number() over (partition by e.id order by d.next_attempt_at) as nth_of_endpoint
        from due_endpoints e
        cross join share s
        left join held h on h.account_id = e.account_id
       cross join lateral (
             select d.id, d.next_attempt_at from webhook_deliveries d
              where d.endpoint_id = e.id and ${unleasedDue()}
              order by d.next_attempt_at
              limit greatest(0, least(${options.perEndpoint}::int - coalesce((select f.n from flight f where f.endpoint_id = e.id), 0),
                                      s.places - coalesce(h.n, 0)))) d
    ), ranked as (
      select id, account_held + row_number() over (partition by account_id order by nth_of_endpoint, random()) as account_would_hold
        from candidates
    ), chosen as (
      select r.id from ranked r cross join share s
       where r.account_would_hold <= s.places
       order by r.account_would_hold, random()
       limit ${options.limit}
    ), locked as (
      select d.id from webhook_deliveries d join chosen c on c.id = d.id
       where ${unleasedDue()}
         for update of d skip locked
    ), leased as (
      update webhook_deliveries d set lease_expires_at = ${leaseExpiresAt} from locked where d.id = locked.id
      returning d.id, d.endpoint_id, d.event_id, d.attempt_count
    )
    select d.id, d.endpoint_id, w.account_id, d.attempt_count, w.url, w.format, w.basic_auth_sealed, w.secret_sealed, w.failing_since,
           case when w.previous_secret_expires_at > ${now} then w.previous_secret_sealed end as previous_secret_sealed,
           e.id as event_id, e.type, e.occurred_at, e.email_id, e.recipient, e.recipient_kind, e.status, e.cause,
           e.attempt_count as event_attempt_count, e.data, m.from_email, m.from_name, m.subject, m.tags, m.test,
           m.message_id_header, m.created_at as email_created_at, ib.id as inbound_email_id, ib.message as inbound_message
      from leased d
      join webhook_endpoints w on w.id = d.endpoint_id
      join webhook_events e on e.id = d.event_id
      left join emails m on m.id = e.email_id
      left join inbound_emails ib on e.type = 'email.received' and ib.id = e.data->>'id'`;
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
