import { isIdOf, type ActiveDomainKey, type DnsCheckOutcome, type VerificationStatus } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import { domainColumns, toDomainRow, type DomainRow } from './domain-rows';
import { newestFirst, type PagePosition } from './keyset';

export type { DomainRow } from './domain-rows';

/** The domain with the figures its representation shows, computed in the same query as the row. */
export interface DomainView extends DomainRow {
  /** Active (not deleted) senders. */
  senderCount: number;
  /** Sums of the delivery daemon's per-sender counters over all the domain's senders, deleted ones included. */
  deliveryCounts: { accepted: number; bounced: number; failed: number; deferred: number };
}

/**
 * The account's active domain with this id, or undefined when the id is malformed,
 * unknown, deleted or another account's: callers answer all four as domain_not_found.
 */
export async function findDomain(db: Queryable, accountId: string, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db`
    select ${domainColumns(db)} from domains d
    where d.id = ${id} and d.account_id = ${accountId} and d.deleted_at is null
    limit 1`;
  return row && toDomainRow(row);
}


/**
 * Domain rows with one aggregate row each, evaluated per domain row (LATERAL) through the
 * senders' domain index. The aggregate exposes no `id` or `created_at`, so keyset
 * conditions name the domain's.
 */
const selectDomainViews = (db: Queryable) => db`
  select ${domainColumns(db)}, t.sender_count, t.accepted, t.bounced, t.failed, t.deferred
  from domains d
  cross join lateral (
    select count(*) filter (where s.deleted_at is null) as sender_count,
           coalesce(sum(s.accepted_count), 0) as accepted, coalesce(sum(s.bounced_count), 0) as bounced,
           coalesce(sum(s.failed_count), 0) as failed, coalesce(sum(s.deferred_count), 0) as deferred
    from senders s where s.domain_id = d.id
  ) t`;

/** count and sum come back as bigint, which the driver hands over as strings. */
function toDomainView(r: Row): DomainView {
  return {
    ...toDomainRow(r),
    senderCount: Number(r.sender_count),
    deliveryCounts: { accepted: Number(r.accepted), bounced: Number(r.bounced), failed: Number(r.failed), deferred: Number(r.deferred) },
  };
}

/** As findDomain, with the sender count and delivery counts. */
export async function findDomainView(db: Queryable, accountId: string, id: string): Promise<DomainView | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db`
    ${selectDomainViews(db)}
    where d.id = ${id} and d.account_id = ${accountId} and d.deleted_at is null
    limit 1`;
  return row && toDomainView(row);
}

/** One page of the account's active domains, newest first; the caller asks for `limit + 1` rows. */
export async function listDomains(
  db: Queryable,
  accountId: string,
  options: { externalId?: string; position?: PagePosition; limit: number },
): Promise<DomainView[]> {
  const page = newestFirst(db, options.position, options.limit);
  const rows = await db`
    ${selectDomainViews(db)}
    where d.account_id = ${accountId} and d.deleted_at is null
      ${options.externalId === undefined ? db`` : db`and d.external_id = ${options.externalId}`}
      ${page.after}
    ${page.page}`;
  return rows.map(toDomainView);
}

/** The account's active domains holding this name or this external_id (at most one of each). */
export async function findActiveDomainKeys(db: Queryable, accountId: string, name: string, externalId: string | null): Promise<ActiveDomainKey[]> {
  // A null external_id matches nothing: `external_id = null` is never true.
  const rows = await db`
    select id, name, external_id from domains
    where account_id = ${accountId} and deleted_at is null and (name = ${name} or external_id = ${externalId})`;
  return rows.map((r) => ({ id: r.id, name: r.name, externalId: r.external_id }));
}

export type NewDomain = Pick<
  DomainRow,
  | 'id'
  | 'accountId'
  | 'name'
  | 'externalId'
  | 'ownershipToken'
  | 'dkimSelector'
  | 'dkimPublicKey'
  | 'dkimPrivateKeySealed'
  | 'dkimEd25519Selector'
  | 'dkimEd25519PublicKey'
  | 'dkimEd25519PrivateKeySealed'
  | 'createdAt'
  | 'updatedAt'
>;

/** The account's active domains and its plan's `max_domains`. */
export interface DomainQuota {
  active: number;
  max: number;
}

const quotaOf = (db: Queryable, accountId: string) => db`
  select (select count(*) from domains where account_id = ${accountId} and deleted_at is null) as active, p.max_domains
  from accounts a join plans p on p.id = a.plan_id
  where a.id = ${accountId}`;

const toQuota = (r: Row): DomainQuota => ({ active: Number(r.active), max: r.max_domains });

/** A cheap look before the costly part of a creation (the key generation); insertDomain decides. */
export async function findDomainQuota(db: Queryable, accountId: string): Promise<DomainQuota> {
  const [row] = await quotaOf(db, accountId);
  return toQuota(row!);
}

export type InsertDomainResult =
  | { kind: 'created'; domain: DomainRow }
  /** An active domain of the account already holds its name or external_id. */
  | { kind: 'taken' }
  | { kind: 'limit_reached'; quota: DomainQuota };

/**
 * Inserts the domain unless the account is at its plan's `max_domains` or an active domain
 * of the account already holds its name or external_id. The account row is locked first,
 * so concurrent creations of one account count each other (the count is a statement of
 * its own, read after the lock); the partial unique indexes decide names and external_ids.
 */
export async function insertDomain(db: Database, values: NewDomain): Promise<InsertDomainResult> {
  return inTransaction(db, async (tx): Promise<InsertDomainResult> => {
    const [, [row]] = await tx.send(tx.sql`select id from accounts where id = ${values.accountId} for update`, quotaOf(tx.sql, values.accountId));
    const quota = toQuota(row!);
    if (quota.active >= quota.max) return { kind: 'limit_reached', quota };
    const [[inserted]] = await tx.commit(tx.sql`
      insert into domains as d (id, account_id, name, external_id, ownership_token, dkim_selector, dkim_public_key,
                                dkim_private_key_sealed, dkim_ed25519_selector, dkim_ed25519_public_key, dkim_ed25519_private_key_sealed,
                                dkim_activated_at, created_at, updated_at)
      values (${values.id}, ${values.accountId}, ${values.name}, ${values.externalId}, ${values.ownershipToken}, ${values.dkimSelector},
              ${values.dkimPublicKey}, ${values.dkimPrivateKeySealed}, ${values.dkimEd25519Selector}, ${values.dkimEd25519PublicKey},
              ${values.dkimEd25519PrivateKeySealed}, ${values.createdAt}, ${values.createdAt}, ${values.updatedAt})
      on conflict do nothing
      returning ${domainColumns(tx.sql)}`);
    return inserted ? { kind: 'created', domain: toDomainRow(inserted) } : { kind: 'taken' };
  });
}

export type DeleteDomainResult = 'deleted' | 'not_found' | 'has_active_senders';

/**
 * Soft-deletes the domain unless it still has active senders. The row is locked for
 * update first; sender creation share-locks it, so no sender can appear in between.
 */
export async function deleteDomain(db: Database, accountId: string, id: string, now: Date): Promise<DeleteDomainResult> {
  if (!isIdOf('domain', id)) return 'not_found';
  return inTransaction(db, async (tx): Promise<DeleteDomainResult> => {
    const [[domain]] = await tx.send(tx.sql`
      select id from domains where id = ${id} and account_id = ${accountId} and deleted_at is null
      for update`);
    if (!domain) return 'not_found';
    const [[active]] = await tx.send(tx.sql`select id from senders where domain_id = ${id} and deleted_at is null limit 1`);
    if (active) return 'has_active_senders';
    await tx.commit(tx.sql`update domains set deleted_at = ${now}, updated_at = ${now} where id = ${id}`);
    return 'deleted';
  });
}

/** Locks an active domain's row until the transaction ends and reads it (to compare a check's outcome with, and to rotate its keys). */
export async function lockDomain(db: Queryable, accountId: string, id: string): Promise<DomainRow | undefined> {
  const [row] = await db`
    select ${domainColumns(db)} from domains d where d.id = ${id} and d.account_id = ${accountId} and d.deleted_at is null for no key update`;
  return row && toDomainRow(row);
}

/** Stores a check's outcome; components it left out keep their status. False when the domain is no longer active. */
export async function recordDnsCheck(
  db: Queryable,
  accountId: string,
  id: string,
  check: DnsCheckOutcome & { startedAt: Date; completedAt: Date },
): Promise<boolean> {
  const { ownership = null, dkim = null, dkim_ed25519: dkimEd25519 = null, dmarc = null, return_path: returnPath = null, receiving = null, tracking = null } = check.components;
  // A status is never null, so coalesce keeps the stored one exactly when the check has none.
  const updated = await db`
    update domains set
      ownership_status = coalesce(${ownership}, ownership_status),
      dkim_status = coalesce(${dkim}, dkim_status),
      dkim_ed25519_status = coalesce(${dkimEd25519}, dkim_ed25519_status),
      dmarc_status = coalesce(${dmarc}, dmarc_status),
      return_path_status = coalesce(${returnPath}, return_path_status),
      receiving_status = coalesce(${receiving}, receiving_status),
      tracking_status = coalesce(${tracking}, tracking_status),
      last_check_status = ${check.lastCheckStatus},
      last_check_started_at = ${check.startedAt},
      last_check_completed_at = ${check.completedAt},
      updated_at = ${check.completedAt}
    where id = ${id} and account_id = ${accountId} and deleted_at is null
    returning id`;
  return updated.length > 0;
}

/**
 * Claims up to `limit` ready domains (every component `verified`) whose last check started
 * before `cutoff` (never checked: created before it), oldest first, for the delivery daemon's
 * re-check: their `last_check_started_at` becomes `now`, so no other daemon picks them until
 * the interval has passed again (rows another daemon is claiming are skipped, not waited for).
 */
export async function claimDomainsForRecheck(db: Queryable, options: { now: Date; cutoff: Date; limit: number }): Promise<DomainRow[]> {
  // Readiness as isDomainReady (@mailer/domain) defines it: all three components verified.
  const verified: VerificationStatus = 'verified';
  const rows = await db`
    update domains d set last_check_started_at = ${options.now}
    where d.id in (
      select id from domains
      where deleted_at is null
        and ownership_status = ${verified} and dkim_status = ${verified} and dmarc_status = ${verified}
        and coalesce(last_check_started_at, created_at) < ${options.cutoff}
      order by coalesce(last_check_started_at, created_at), id
      limit ${options.limit}
      for update skip locked)
    returning ${domainColumns(db)}`;
  return rows.map(toDomainRow);
}

/**
 * Whether a delivery exists and was sent from an active domain of this name: the inbound
 * listener's RCPT check of a return-path token that verified, so that a genuine token tells
 * nothing about any domain but its own (docs/api-decisions.md, "Return path").
 */
export async function returnPathDeliveryExists(db: Queryable, deliveryId: string, domainName: string): Promise<boolean> {
  const rows = await db`
    select 1 from deliveries dl join emails e on e.id = dl.email_id join domains d on d.id = e.domain_id
     where dl.id = ${deliveryId} and d.name = ${domainName} and d.deleted_at is null`;
  return rows.length > 0;
}

/** What PATCH /v1/domains/{id} sets: inbound mail, and opens and clicks. */
export interface DomainSettings {
  receivingEnabled: boolean;
  receivingSubdomain: string | null;
  trackingOpens: boolean;
  trackingClicks: boolean;
  trackingSubdomain: string;
}

/**
 * Sets receiving (on or off, and the host it is received at; docs/api-decisions.md, "Inbound
 * mail") and tracking (opens, clicks, the tracking host's label; "Opens and clicks"). A change of
 * the receiving host or of whether it is on makes the receiving component `not_checked` again (its
 * MX is another record now), and so does a change of the tracking label or of whether any
 * tracking is on for the tracking component; a request that changes nothing leaves the domain,
 * `updated_at` included, alone.
 */
export async function updateDomainSettings(db: Queryable, domain: DomainRow, changes: DomainSettings, now: Date): Promise<boolean> {
  const receivingMoved = changes.receivingEnabled !== domain.receivingEnabled || changes.receivingSubdomain !== domain.receivingSubdomain;
  const trackingOn = (d: { trackingOpens: boolean; trackingClicks: boolean }) => d.trackingOpens || d.trackingClicks;
  const trackingMoved = trackingOn(changes) !== trackingOn(domain) || changes.trackingSubdomain !== domain.trackingSubdomain;
  if (!receivingMoved && !trackingMoved && changes.trackingOpens === domain.trackingOpens && changes.trackingClicks === domain.trackingClicks) return true;
  const updated = await db`
    update domains set receiving_enabled = ${changes.receivingEnabled}, receiving_subdomain = ${changes.receivingSubdomain},
           receiving_status = case when ${receivingMoved}::boolean then 'not_checked' else receiving_status end,
           tracking_opens = ${changes.trackingOpens}, tracking_clicks = ${changes.trackingClicks}, tracking_subdomain = ${changes.trackingSubdomain},
           tracking_status = case when ${trackingMoved}::boolean then 'not_checked' else tracking_status end, updated_at = ${now}
     where id = ${domain.id} and account_id = ${domain.accountId} and deleted_at is null
    returning id`;
  return updated.length > 0;
}
