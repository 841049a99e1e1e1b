import { isIdOf, newId, type SentWebhookEventType, type WebhookDeliveryStatus, type WebhookEventType, type WebhookFormat } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import { newestFirst, type PagePosition } from './keyset';
import { endPendingWebhookDeliveries } from './webhook-sending-store';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  /** Without credentials: a postmark-format endpoint's HTTP Basic ones are `credentialsSealed`. */
  url: string;
  events: WebhookEventType[];
  description: string | null;
  status: 'enabled' | 'disabled';
  format: WebhookFormat;
  /** `user:password`, sealed for WEBHOOK_CREDENTIALS_SEAL_PURPOSE; null when the URL had none. */
  credentialsSealed: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const toEndpoint = (r: Row): WebhookEndpoint => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: r.events,
  description: r.description,
  status: r.status,
  format: r.format,
  credentialsSealed: r.basic_auth_sealed,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const endpointColumns = (db: Queryable) => db`id, account_id, url, events, description, status, format, basic_auth_sealed, created_at, updated_at`;

/** The account's webhook endpoints (not deleted, enabled or not) and its plan's `max_webhook_endpoints`. */
export interface WebhookEndpointQuota {
  existing: number;
  max: number;
}

export type CreateWebhookEndpointResult = { kind: 'created'; endpoint: WebhookEndpoint } | { kind: 'limit_reached'; quota: WebhookEndpointQuota };

/**
 * Inserts the endpoint unless the account already has its plan's `max_webhook_endpoints`
 * (docs/api-decisions.md, "Webhooks"). A disabled endpoint counts: enabling it takes no
 * place of its own. The account row is locked first, so concurrent creations of one
 * account count each other (the count is a statement of its own, read after the lock).
 */
export async function createWebhookEndpoint(
  db: Database,
  input: Pick<WebhookEndpoint, 'accountId' | 'url' | 'events' | 'description'> & Partial<Pick<WebhookEndpoint, 'format' | 'credentialsSealed'>> & { secretSealed: string; now: Date },
): Promise<CreateWebhookEndpointResult> {
  return inTransaction(db, async (tx): Promise<CreateWebhookEndpointResult> => {
    const [, [row]] = await tx.send(
      tx.sql`select id from accounts where id = ${input.accountId} for update`,
      tx.sql`
        select (select count(*) from webhook_endpoints where account_id = ${input.accountId} and deleted_at is null) as existing,
               p.max_webhook_endpoints
          from accounts a join plans p on p.id = a.plan_id
         where a.id = ${input.accountId}`,
    );
    const quota = { existing: Number(row!.existing), max: row!.max_webhook_endpoints };
    if (quota.existing >= quota.max) return { kind: 'limit_reached', quota };
    const [[inserted]] = await tx.commit(tx.sql`
      insert into webhook_endpoints (id, account_id, url, events, description, format, basic_auth_sealed, secret_sealed, created_at, updated_at)
      values (${newId('webhook')}, ${input.accountId}, ${input.url}, ${input.events}::text[], ${input.description}, ${input.format ?? 'default'},
              ${input.credentialsSealed ?? null}, ${input.secretSealed}, ${input.now}, ${input.now})
      returning ${endpointColumns(tx.sql)}`);
    return { kind: 'created', endpoint: toEndpoint(inserted!) };
  });
}

export async function findWebhookEndpoint(db: Queryable, accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
  if (!isIdOf('webhook', id)) return undefined;
  const [row] = await db`select ${endpointColumns(db)} from webhook_endpoints where id = ${id} and account_id = ${accountId} and deleted_at is null`;
  return row && toEndpoint(row);
}

export async function listWebhookEndpoints(db: Queryable, accountId: string, position: PagePosition | undefined, limit: number): Promise<WebhookEndpoint[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`
    select ${endpointColumns(db)} from webhook_endpoints where account_id = ${accountId} and deleted_at is null ${page.after} ${page.page}`;
  return rows.map(toEndpoint);
}

/** `credentialsSealed` changes with `url`: the caller seals new credentials only when they differ from the stored ones. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'status' | 'format' | 'credentialsSealed'>>;

/**
 * Applies the changes that differ from the endpoint as stored; a request that changes
 * nothing leaves `updated_at` alone. Enabling an endpoint again clears its failing streak.
 */
export async function updateWebhookEndpoint(
  db: Queryable,
  endpoint: WebhookEndpoint,
  changes: WebhookEndpointChanges,
  now: Date,
): Promise<WebhookEndpoint | undefined> {
  const next = { ...endpoint, ...changes };
  const same =
    next.url === endpoint.url &&
    next.credentialsSealed === endpoint.credentialsSealed &&
    next.format === endpoint.format &&
    next.description === endpoint.description &&
    next.status === endpoint.status &&
    next.events.length === endpoint.events.length &&
    next.events.every((e, i) => e === endpoint.events[i]);
  if (same) return endpoint;
  const [row] = await db`
    with changed as (
      update webhook_endpoints
         set url = ${next.url}, basic_auth_sealed = ${next.credentialsSealed}, format = ${next.format}, events = ${next.events}::text[],
             description = ${next.description}, status = ${next.status},
             failing_since = case when ${next.status} = 'enabled' then null else failing_since end, updated_at = ${now}
       where id = ${endpoint.id} and account_id = ${endpoint.accountId} and deleted_at is null
      returning ${endpointColumns(db)}
    ), ended as (${endPendingWebhookDeliveries(db, db`select id from changed where status = 'disabled'`)})
    select * from changed`;
  return row && toEndpoint(row);
}

/** Soft delete: its pending deliveries end failed, unsent. False when there was no such endpoint. */
export async function deleteWebhookEndpoint(db: Queryable, accountId: string, id: string, now: Date): Promise<boolean> {
  if (!isIdOf('webhook', id)) return false;
  const deleted = await db`
    with deleted as (
      update webhook_endpoints set deleted_at = ${now}, updated_at = ${now}
       where id = ${id} and account_id = ${accountId} and deleted_at is null
      returning id
    ), ended as (${endPendingWebhookDeliveries(db, db`select id from deleted`)})
    select id from deleted`;
  return deleted.length > 0;
}

/** The current secret becomes the previous one, signing beside the new one until `overlapUntil`. */
export async function rotateWebhookSecret(db: Queryable, endpoint: WebhookEndpoint, secretSealed: string, overlapUntil: Date, now: Date): Promise<boolean> {
  const rotated = await db`
    update webhook_endpoints
       set previous_secret_sealed = secret_sealed, previous_secret_expires_at = ${overlapUntil}, secret_sealed = ${secretSealed}, updated_at = ${now}
     where id = ${endpoint.id} and account_id = ${endpoint.accountId} and deleted_at is null`;
  return rotated.count > 0;
}

export interface WebhookDeliveryRecord {
  id: string;
  eventId: string;
  type: SentWebhookEventType;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

export async function listWebhookDeliveries(db: Queryable, endpointId: string, position: PagePosition | undefined, limit: number): Promise<WebhookDeliveryRecord[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`
    select id, event_id, type, status, attempt_count, last_attempt_at, last_response_status, next_attempt_at, created_at
      from (select d.id, d.event_id, e.type, d.status, d.attempt_count, d.last_attempt_at, d.last_response_status,
                   case when d.status = 'pending' then d.next_attempt_at end as next_attempt_at, d.created_at
              from webhook_deliveries d join webhook_events e on e.id = d.event_id
             where d.endpoint_id = ${endpointId}) w
     where true ${page.after} ${page.page}`;
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    type: r.type,
    status: r.status,
    attemptCount: r.attempt_count,
    lastAttemptAt: r.last_attempt_at,
    lastResponseStatus: r.last_response_status,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
  }));
}

export type RequeueWebhookDeliveryResult = 'requeued' | 'not_found' | 'endpoint_disabled';

/**
 * Makes one of the endpoint's deliveries due now with a fresh retry schedule (docs/api-decisions.md,
 * "Operator console"): a finished one is pending again with no attempts counted, a pending one is due
 * now. The endpoint must be the account's, not deleted, and enabled: a disabled endpoint's pending
 * deliveries are ended (endPendingWebhookDeliveries), so none is made pending under it.
 */
export async function requeueWebhookDelivery(
  db: Queryable,
  target: { accountId: string; endpointId: string; deliveryId: string },
  now: Date,
): Promise<RequeueWebhookDeliveryResult> {
  const [row] = await db`
    with endpoint as (
      select id, status from webhook_endpoints
       where id = ${target.endpointId} and account_id = ${target.accountId} and deleted_at is null
         for share
    ), requeued as (
      update webhook_deliveries d
         set status = 'pending',
             attempt_count = case when d.status = 'pending' then d.attempt_count else 0 end,
             next_attempt_at = ${now},
             lease_expires_at = case when d.status = 'pending' then d.lease_expires_at end
        from endpoint e
       where d.id = ${target.deliveryId} and d.endpoint_id = e.id and e.status = 'enabled'
      returning d.id
    )
    select (select status from endpoint) as endpoint_status,
           exists (select from webhook_deliveries where id = ${target.deliveryId} and endpoint_id = ${target.endpointId}) as delivery_exists,
           exists (select from requeued) as requeued`;
  if (row?.requeued) return 'requeued';
  if (row?.endpoint_status === 'disabled' && row.delivery_exists) return 'endpoint_disabled';
  return 'not_found';
}
