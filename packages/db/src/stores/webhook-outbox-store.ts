import { newId, WEBHOOK_FORMAT_ROUTES, type DeliveryCause, type DeliveryStatus, type WebhookEventType } from '@mailer/domain';
import { timestampsParam } from '../database';
import type { Transaction } from '../transaction';

/** A delivery's transition as a webhook event reports it. */
export interface DeliveryEvent {
  accountId: string;
  type: WebhookEventType;
  emailId: string;
  /** Null for a BCC delivery: nothing derived from a BCC address leaves the service. */
  recipient: string | null;
  recipientKind: 'to' | 'cc' | 'bcc';
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  attemptCount: number;
  at: Date;
  /** For `email.opened` and `email.clicked`: the open's or click's details, recorded as the event's data. */
  data?: unknown;
}

/**
 * An event that carries its data whole (`domain.status_changed`: the domain representation;
 * `domain.dkim_rotation_pending`: the domain and the records to publish).
 */
export interface DataEvent {
  accountId: string;
  type: WebhookEventType;
  data: unknown;
  at: Date;
  /** Only this endpoint of the account, whatever types it subscribes to (a route's webhook_id, docs/api-decisions.md, "Inbound mail"). */
  endpointId?: string | null;
}

/**
 * The outbox write, in the transaction of the changes it reports: each event that an
 * enabled endpoint of its account subscribes to (or that targets one enabled endpoint) and whose
 * format sends it (webhookPayload's rules, WEBHOOK_FORMAT_ROUTES), and one pending delivery per
 * such endpoint, due at once. Events no endpoint wants are not written. How many deliveries
 * an event fans out to only the statement knows, so their ids are not minted one by one
 * here: each is the first 22 base64 characters (`+` and `/` read as `A` and `B`) of the
 * SHA-256 of one id minted here and the delivery's event and endpoint, the shape of every
 * other `whd_` id (isIdOf) and as unguessable as the minted one.
 */
export function webhookEventsOutbox(tx: Transaction, events: readonly (DeliveryEvent | DataEvent)[]) {
  const email = (e: DeliveryEvent | DataEvent) => ('emailId' in e ? e : undefined);
  return tx.sql`
    with candidate as (
      select * from unnest(${events.map(() => newId('webhookEvent'))}::text[], ${events.map((e) => e.accountId)}::text[], ${events.map((e) => e.type)}::text[],
                           ${events.map((e) => email(e)?.emailId ?? null)}::text[], ${events.map((e) => email(e)?.recipient ?? null)}::text[],
                           ${events.map((e) => email(e)?.recipientKind ?? null)}::text[], ${events.map((e) => email(e)?.status ?? null)}::text[],
                           ${events.map((e) => (email(e)?.cause ? JSON.stringify(email(e)!.cause) : null))}::text[],
                           ${events.map((e) => email(e)?.attemptCount ?? null)}::int[],
                           ${events.map((e) => ('data' in e ? JSON.stringify(e.data) : null))}::text[],
                           ${timestampsParam(events.map((e) => e.at))}::text[]::timestamptz[],
                           ${events.map((e) => ('endpointId' in e ? (e.endpointId ?? null) : null))}::text[])
             as x(id, account_id, type, email_id, recipient, recipient_kind, status, cause, attempt_count, data, occurred_at, target)
    ), subscribed as materialized (
      -- Every enabled endpoint of the account whose events include the type (or the one endpoint the event targets) and whose format sends it.
      select c.*, w.id as endpoint_id
        from candidate c join webhook_endpoints w
          on w.account_id = c.account_id and w.deleted_at is null and w.status = 'enabled'
         and (case when c.target is null then c.type = any(w.events) else w.id = c.target end)
         and w.format || ' ' || c.type = any(${WEBHOOK_FORMAT_ROUTES.sent}::text[])
         and (c.recipient_kind is distinct from 'bcc' or w.format = any(${WEBHOOK_FORMAT_ROUTES.bcc}::text[]))
    ), written as (
      insert into webhook_events (id, account_id, type, email_id, recipient, recipient_kind, status, cause, attempt_count, data, occurred_at)
      select distinct on (id) id, account_id, type, email_id, recipient, recipient_kind, status, cause::jsonb, attempt_count, data::jsonb, occurred_at
        from subscribed
    )
    insert into webhook_deliveries (id, endpoint_id, event_id, account_id, next_attempt_at, created_at)
    select 'whd_' || left(translate(encode(sha256(convert_to(${newId('webhookDelivery')}::text || id || endpoint_id, 'UTF8')), 'base64'), '+/', 'AB'), 22),
           endpoint_id, id, account_id, occurred_at, occurred_at from subscribed`;
}
