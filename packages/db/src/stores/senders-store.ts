import { isDomainReady, isIdOf, newId, type TransportSecurityPolicy } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import { newestFirst, type PagePosition } from './keyset';

/** A `senders` row. */
export interface SenderRow {
  id: string;
  accountId: string;
  domainId: string;
  /** As supplied, with the domain part normalized to the domain's A-label. */
  email: string;
  /** Lower-cased `email`: senders are unique per domain case-insensitively. */
  emailKey: string;
  displayName: string | null;
  transportSecurityPolicy: TransportSecurityPolicy;
  configuredState: 'enabled' | 'disabled';
  lastUsedAt: Date | null;
  acceptedCount: number;
  bouncedCount: number;
  failedCount: number;
  /** Deliveries currently deferred (not a running total). */
  deferredCount: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** A sender with what its representation needs of its domain: whether the domain is ready. */
export type SenderRecord = SenderRow & { domainReady: boolean };

/** The columns toSenderRow reads, of the table aliased `s`. */
const senderColumns = (db: Queryable) => db`
  s.id, s.account_id, s.domain_id, s.email, s.email_key, s.display_name, s.transport_security_policy,
  s.configured_state, s.last_used_at, s.accepted_count, s.bounced_count, s.failed_count, s.deferred_count,
  s.created_at, s.updated_at, s.deleted_at`;

export function toSenderRow(r: Row): SenderRow {
  return {
    id: r.id,
    accountId: r.account_id,
    domainId: r.domain_id,
    email: r.email,
    emailKey: r.email_key,
    displayName: r.display_name,
    transportSecurityPolicy: r.transport_security_policy,
    configuredState: r.configured_state,
    lastUsedAt: r.last_used_at,
    acceptedCount: r.accepted_count,
    bouncedCount: r.bounced_count,
    failedCount: r.failed_count,
    deferredCount: r.deferred_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

const domainStatuses = (r: Row) => ({ ownershipStatus: r.ownership_status, dkimStatus: r.dkim_status, dmarcStatus: r.dmarc_status });

function toSenderRecord(r: Row): SenderRecord {
  return { ...toSenderRow(r), domainReady: isDomainReady(domainStatuses(r)) };
}

/**
 * Sender rows with their domain's statuses. The domain is joined through a LATERAL
 * subquery exposing only the statuses, so keyset conditions name the sender's `id` and
 * `created_at`; a sender always has its domain, so this is the inner join it reads as.
 */
const selectSenders = (db: Queryable) => db`
  select ${senderColumns(db)}, d.ownership_status, d.dkim_status, d.dmarc_status
  from senders s
  cross join lateral (select ownership_status, dkim_status, dmarc_status from domains where domains.id = s.domain_id) d`;

/**
 * The account's active sender with this id, or undefined when the id is malformed,
 * unknown, deleted or another account's: callers answer all four as sender_not_found.
 */
export async function findSender(db: Queryable, accountId: string, id: string): Promise<SenderRecord | undefined> {
  if (!isIdOf('sender', id)) return undefined;
  const [row] = await db`
    ${selectSenders(db)}
    where s.id = ${id} and s.account_id = ${accountId} and s.deleted_at is null
    limit 1`;
  return row && toSenderRecord(row);
}

/** One page of the domain's active senders, newest first; `limit + 1` rows are asked for by the caller. */
export async function listSenders(db: Queryable, domainId: string, position: PagePosition | undefined, limit: number): Promise<SenderRecord[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`
    ${selectSenders(db)}
    where s.domain_id = ${domainId} and s.deleted_at is null ${page.after}
    ${page.page}`;
  return rows.map(toSenderRecord);
}

/** `email` and `emailKey` are `Mailbox.address` and `Mailbox.key` (see parseMailbox). */
export type NewSender = Pick<SenderRow, 'accountId' | 'domainId' | 'email' | 'emailKey' | 'displayName' | 'transportSecurityPolicy'> & { now: Date };

export type CreateSenderResult =
  | { outcome: 'created'; sender: SenderRecord }
  | { outcome: 'already_exists' }
  | { outcome: 'domain_gone' };

/**
 * Inserts the sender unless an active one with the same `emailKey` exists under the
 * domain. The domain row is share-locked for the transaction so that a concurrent
 * domain DELETE (which locks the row for update before counting active senders)
 * cannot remove the domain underneath a new sender; the partial unique index
 * `senders_active_email_key` settles concurrent creations of one address.
 */
export async function createSender(db: Database, input: NewSender): Promise<CreateSenderResult> {
  return inTransaction(db, async (tx): Promise<CreateSenderResult> => {
    const [[domain]] = await tx.send(tx.sql`
      select ownership_status, dkim_status, dmarc_status from domains
      where id = ${input.domainId} and account_id = ${input.accountId} and deleted_at is null
      for share`);
    if (!domain) return { outcome: 'domain_gone' };
    const [[sender]] = await tx.commit(tx.sql`
      insert into senders as s (id, account_id, domain_id, email, email_key, display_name, transport_security_policy, created_at, updated_at)
      values (${newId('sender')}, ${input.accountId}, ${input.domainId}, ${input.email}, ${input.emailKey}, ${input.displayName},
              ${input.transportSecurityPolicy}, ${input.now}, ${input.now})
      on conflict (domain_id, email_key) where deleted_at is null do nothing
      returning ${senderColumns(tx.sql)}`);
    if (!sender) return { outcome: 'already_exists' };
    return { outcome: 'created', sender: { ...toSenderRow(sender), domainReady: isDomainReady(domainStatuses(domain)) } };
  });
}

export interface SenderChanges {
  /** null clears the display name; undefined leaves it. */
  displayName?: string | null;
  transportSecurityPolicy?: TransportSecurityPolicy;
}

/**
 * Applies the changes and bumps `updated_at` only when a value actually differs, in one
 * statement so that concurrent updates cannot both see "changed". Returns the sender as
 * it now is, or undefined when it is no longer active.
 */
export async function updateSender(
  db: Queryable,
  accountId: string,
  id: string,
  changes: SenderChanges,
  now: Date,
): Promise<SenderRecord | undefined> {
  const { displayName, transportSecurityPolicy = null } = changes;
  if (displayName !== undefined || transportSecurityPolicy !== null) {
    // One text for every combination of changes: `setName` tells a display name left out
    // from one cleared (both bind null); a left-out policy binds null, which coalesce
    // skips and `<>` never finds different.
    const setName = displayName !== undefined;
    await db`
      update senders set
        display_name = case when ${setName} then ${displayName ?? null} else display_name end,
        transport_security_policy = coalesce(${transportSecurityPolicy}, transport_security_policy),
        updated_at = ${now}
      where id = ${id} and account_id = ${accountId} and deleted_at is null
        and ((${setName} and display_name is distinct from ${displayName ?? null}) or transport_security_policy <> ${transportSecurityPolicy})`;
  }
  return findSender(db, accountId, id);
}

/** Disables and soft-deletes the sender; false when it was not active. Its email history stays. */
export async function deleteSender(db: Queryable, accountId: string, id: string, now: Date): Promise<boolean> {
  if (!isIdOf('sender', id)) return false;
  const deleted = await db`
    update senders set configured_state = 'disabled', deleted_at = ${now}, updated_at = ${now}
    where id = ${id} and account_id = ${accountId} and deleted_at is null
    returning id`;
  return deleted.length > 0;
}
