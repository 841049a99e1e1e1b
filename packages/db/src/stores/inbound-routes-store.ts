import { isIdOf, newId, type RoutePattern } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import { newestFirst, type PagePosition } from './keyset';

/** A route of received mail (docs/api-decisions.md, "Inbound mail"). */
export interface InboundRoute {
  id: string;
  accountId: string;
  domainId: string;
  pattern: string;
  webhookId: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const toRoute = (r: Row): InboundRoute => ({
  id: r.id,
  accountId: r.account_id,
  domainId: r.domain_id,
  pattern: r.pattern,
  webhookId: r.webhook_id,
  enabled: r.enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const routeColumns = (db: Queryable) => db`id, account_id, domain_id, pattern, webhook_id, enabled, created_at, updated_at`;

export type CreateInboundRouteResult = { kind: 'created'; route: InboundRoute } | { kind: 'no_such_domain' } | { kind: 'already_exists' };

/**
 * Inserts a route on the account's active domain whose name or receiving subdomain is the
 * pattern's host; `no_such_domain` when it has none, `already_exists` when an active route has
 * that pattern (the unique index settles concurrent creations).
 */
export async function createInboundRoute(
  db: Queryable,
  input: { accountId: string; pattern: RoutePattern; webhookId: string | null; enabled: boolean; now: Date },
): Promise<CreateInboundRouteResult> {
  const { pattern, localPart, host } = input.pattern;
  const rows = await db`
    insert into inbound_routes (id, account_id, domain_id, pattern, local_part, host, webhook_id, enabled, created_at, updated_at)
    select ${newId('inboundRoute')}, ${input.accountId}, d.id, ${pattern}, ${localPart}, ${host}, ${input.webhookId}, ${input.enabled}, ${input.now}, ${input.now}
      from domains d
     where d.account_id = ${input.accountId} and d.deleted_at is null and (d.name = ${host} or d.receiving_subdomain = ${host})
     order by d.name = ${host} desc
     limit 1
    on conflict (account_id, pattern) where deleted_at is null do nothing
    returning ${routeColumns(db)}`;
  if (rows[0]) return { kind: 'created', route: toRoute(rows[0]) };
  const [domain] = await db`
    select 1 from domains where account_id = ${input.accountId} and deleted_at is null and (name = ${host} or receiving_subdomain = ${host}) limit 1`;
  return domain ? { kind: 'already_exists' } : { kind: 'no_such_domain' };
}

export async function findInboundRoute(db: Queryable, accountId: string, id: string): Promise<InboundRoute | undefined> {
  if (!isIdOf('inboundRoute', id)) return undefined;
  const [row] = await db`select ${routeColumns(db)} from inbound_routes where id = ${id} and account_id = ${accountId} and deleted_at is null`;
  return row && toRoute(row);
}

export async function listInboundRoutes(db: Queryable, accountId: string, position: PagePosition | undefined, limit: number): Promise<InboundRoute[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`select ${routeColumns(db)} from inbound_routes where account_id = ${accountId} and deleted_at is null ${page.after} ${page.page}`;
  return rows.map(toRoute);
}

/** Applies the changes that differ; a request that changes nothing leaves `updated_at` alone. */
export async function updateInboundRoute(
  db: Queryable,
  route: InboundRoute,
  changes: Partial<Pick<InboundRoute, 'webhookId' | 'enabled'>>,
  now: Date,
): Promise<InboundRoute | undefined> {
  const next = { ...route, ...changes };
  if (next.webhookId === route.webhookId && next.enabled === route.enabled) return route;
  const [row] = await db`
    update inbound_routes set webhook_id = ${next.webhookId}, enabled = ${next.enabled}, updated_at = ${now}
     where id = ${route.id} and account_id = ${route.accountId} and deleted_at is null
    returning ${routeColumns(db)}`;
  return row && toRoute(row);
}

/** Soft delete; false when there was no such route. */
export async function deleteInboundRoute(db: Queryable, accountId: string, id: string, now: Date): Promise<boolean> {
  if (!isIdOf('inboundRoute', id)) return false;
  const deleted = await db`update inbound_routes set deleted_at = ${now}, updated_at = ${now} where id = ${id} and account_id = ${accountId} and deleted_at is null returning id`;
  return deleted.length > 0;
}

/** The route a recipient reaches, and how many messages its account received within the rate window. */
export interface RoutedRecipient {
  routeId: string;
  accountId: string;
  webhookId: string | null;
  receivedInWindow: number;
}

/**
 * The listener's RCPT check (docs/api-decisions.md, "Inbound mail"): the enabled route of an
 * active domain whose ownership and receiving are verified and whose receiving host is `host`,
 * matching the local part exactly before `*`; with the count of the account's messages
 * received since `windowStart`, for the rate limit. One statement, through the routes' match index.
 */
export async function matchInboundRoute(db: Queryable, recipient: { localPart: string; host: string }, windowStart: Date): Promise<RoutedRecipient | undefined> {
  const [row] = await db`
    select r.id, r.account_id, r.webhook_id,
           (select count(*) from inbound_emails e where e.account_id = r.account_id and e.created_at > ${windowStart}) as received
      from inbound_routes r join domains d on d.id = r.domain_id
     where r.host = ${recipient.host} and (r.local_part = ${recipient.localPart} or r.local_part is null)
       and r.deleted_at is null and r.enabled
       and d.deleted_at is null and d.receiving_enabled and d.receiving_status = 'verified' and d.ownership_status = 'verified'
       and coalesce(d.receiving_subdomain, d.name) = r.host
     order by r.local_part is null, r.created_at
     limit 1`;
  return row && { routeId: row.id, accountId: row.account_id, webhookId: row.webhook_id, receivedInWindow: Number(row.received) };
}
