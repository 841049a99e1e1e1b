import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { isIdOf, type ActiveDomainKey, type DnsCheckOutcome, type VerificationStatus } from '@mailer/domain';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database, DbOrTx } from '../database';
import { domains } from '../schema/domains';
import { senders } from '../schema/senders';
import { after, newestFirst } from './keyset';

export type DomainRow = typeof domains.$inferSelect;

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
export async function findDomain(db: DbOrTx, accountId: string, id: string): Promise<DomainRow | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.id, id), eq(domains.accountId, accountId), isNull(domains.deletedAt)))
    .limit(1);
  return row;
}

/** Ready to send: ownership, DKIM and DMARC all verified. */
export function isDomainReady(domain: Pick<DomainRow, 'ownershipStatus' | 'dkimStatus' | 'dmarcStatus'>): boolean {
  return domain.ownershipStatus === 'verified' && domain.dkimStatus === 'verified' && domain.dmarcStatus === 'verified';
}

const total = (column: PgColumn) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);

/** One aggregate row per domain, evaluated per domain row (LATERAL) through the senders' domain index. */
function selectDomainViews(db: DbOrTx) {
  const totals = db
    .select({
      senderCount: sql<number>`count(*) filter (where ${senders.deletedAt} is null)`.mapWith(Number).as('sender_count'),
      accepted: total(senders.acceptedCount).as('accepted'),
      bounced: total(senders.bouncedCount).as('bounced'),
      failed: total(senders.failedCount).as('failed'),
      deferred: total(senders.deferredCount).as('deferred'),
    })
    .from(senders)
    .where(eq(senders.domainId, domains.id))
    .as('sender_totals');
  const { senderCount, accepted, bounced, failed, deferred } = totals;
  return db
    .select({ domain: domains, totals: { senderCount, accepted, bounced, failed, deferred } })
    .from(domains)
    .innerJoinLateral(totals, sql`true`);
}

function toView({ domain, totals }: { domain: DomainRow; totals: { senderCount: number; accepted: number; bounced: number; failed: number; deferred: number } }): DomainView {
  const { senderCount, ...deliveryCounts } = totals;
  return { ...domain, senderCount, deliveryCounts };
}

/** As findDomain, with the sender count and delivery counts. */
export async function findDomainView(db: DbOrTx, accountId: string, id: string): Promise<DomainView | undefined> {
  if (!isIdOf('domain', id)) return undefined;
  const [row] = await selectDomainViews(db)
    .where(and(eq(domains.id, id), eq(domains.accountId, accountId), isNull(domains.deletedAt)))
    .limit(1);
  return row && toView(row);
}

/** One page of the account's active domains, newest first; the caller asks for `limit + 1` rows. */
export async function listDomains(
  db: DbOrTx,
  accountId: string,
  options: { externalId?: string; position?: { createdAt: Date; id: string }; limit: number },
): Promise<DomainView[]> {
  const rows = await selectDomainViews(db)
    .where(
      and(
        eq(domains.accountId, accountId),
        isNull(domains.deletedAt),
        options.externalId === undefined ? undefined : eq(domains.externalId, options.externalId),
        after(domains.createdAt, domains.id, options.position),
      ),
    )
    .orderBy(...newestFirst(domains.createdAt, domains.id))
    .limit(options.limit);
  return rows.map(toView);
}

/** The account's active domains holding this name or this external_id (at most one of each). */
export async function findActiveDomainKeys(db: DbOrTx, accountId: string, name: string, externalId: string | null): Promise<ActiveDomainKey[]> {
  return db
    .select({ id: domains.id, name: domains.name, externalId: domains.externalId })
    .from(domains)
    .where(
      and(
        eq(domains.accountId, accountId),
        isNull(domains.deletedAt),
        externalId === null ? eq(domains.name, name) : or(eq(domains.name, name), eq(domains.externalId, externalId)),
      ),
    );
}

export type NewDomain = Pick<
  typeof domains.$inferInsert,
  'id' | 'accountId' | 'name' | 'externalId' | 'ownershipToken' | 'dkimSelector' | 'dkimPublicKey' | 'dkimPrivateKeySealed' | 'createdAt' | 'updatedAt'
>;

/**
 * Inserts the domain, or returns undefined when an active domain of the account already
 * holds its name or external_id: the partial unique indexes decide, so concurrent
 * creations cannot both succeed.
 */
export async function insertDomain(db: DbOrTx, values: NewDomain): Promise<DomainRow | undefined> {
  const [row] = await db.insert(domains).values(values).onConflictDoNothing().returning();
  return row;
}

export type DeleteDomainResult = 'deleted' | 'not_found' | 'has_active_senders';

/**
 * Soft-deletes the domain unless it still has active senders. The row is locked for
 * update first; sender creation share-locks it, so no sender can appear in between.
 */
export async function deleteDomain(db: Database, accountId: string, id: string, now: Date): Promise<DeleteDomainResult> {
  if (!isIdOf('domain', id)) return 'not_found';
  return db.transaction(async (tx) => {
    const [domain] = await tx
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.id, id), eq(domains.accountId, accountId), isNull(domains.deletedAt)))
      .for('update');
    if (!domain) return 'not_found';
    const [active] = await tx
      .select({ id: senders.id })
      .from(senders)
      .where(and(eq(senders.domainId, id), isNull(senders.deletedAt)))
      .limit(1);
    if (active) return 'has_active_senders';
    await tx.update(domains).set({ deletedAt: now, updatedAt: now }).where(eq(domains.id, id));
    return 'deleted';
  });
}

const STATUS_COLUMN = { ownership: 'ownershipStatus', dkim: 'dkimStatus', dmarc: 'dmarcStatus' } as const;

/** Stores a check's outcome; components it left out keep their status. False when the domain is no longer active. */
export async function recordDnsCheck(
  db: DbOrTx,
  accountId: string,
  id: string,
  check: DnsCheckOutcome & { startedAt: Date; completedAt: Date },
): Promise<boolean> {
  const statuses: Partial<Record<(typeof STATUS_COLUMN)[keyof typeof STATUS_COLUMN], VerificationStatus>> = {};
  for (const [purpose, status] of Object.entries(check.components) as [keyof typeof STATUS_COLUMN, VerificationStatus][]) {
    statuses[STATUS_COLUMN[purpose]] = status;
  }
  const updated = await db
    .update(domains)
    .set({
      ...statuses,
      lastCheckStatus: check.lastCheckStatus,
      lastCheckStartedAt: check.startedAt,
      lastCheckCompletedAt: check.completedAt,
      updatedAt: check.completedAt,
    })
    .where(and(eq(domains.id, id), eq(domains.accountId, accountId), isNull(domains.deletedAt)))
    .returning({ id: domains.id });
  return updated.length > 0;
}
