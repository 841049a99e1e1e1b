import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { isIdOf, newId, type TransportSecurityPolicy } from '@mailer/domain';
import type { Database, DbOrTx } from '../database';
import { domains } from '../schema/domains';
import { senders } from '../schema/senders';
import { isDomainReady } from './domains-store';
import { after, newestFirst } from './keyset';

export type SenderRow = typeof senders.$inferSelect;

/** A sender with what its representation needs of its domain: whether the domain is ready. */
export type SenderRecord = SenderRow & { domainReady: boolean };

const withDomainStatus = {
  sender: senders,
  ownershipStatus: domains.ownershipStatus,
  dkimStatus: domains.dkimStatus,
  dmarcStatus: domains.dmarcStatus,
};

function toRecord(row: { sender: SenderRow } & Parameters<typeof isDomainReady>[0]): SenderRecord {
  return { ...row.sender, domainReady: isDomainReady(row) };
}

function selectSenders(db: DbOrTx) {
  return db.select(withDomainStatus).from(senders).innerJoin(domains, eq(domains.id, senders.domainId));
}

/**
 * The account's active sender with this id, or undefined when the id is malformed,
 * unknown, deleted or another account's: callers answer all four as sender_not_found.
 */
export async function findSender(db: DbOrTx, accountId: string, id: string): Promise<SenderRecord | undefined> {
  if (!isIdOf('sender', id)) return undefined;
  const [row] = await selectSenders(db)
    .where(and(eq(senders.id, id), eq(senders.accountId, accountId), isNull(senders.deletedAt)))
    .limit(1);
  return row && toRecord(row);
}

/** One page of the domain's active senders, newest first; `limit + 1` rows are asked for by the caller. */
export async function listSenders(
  db: DbOrTx,
  domainId: string,
  position: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<SenderRecord[]> {
  const rows = await selectSenders(db)
    .where(and(eq(senders.domainId, domainId), isNull(senders.deletedAt), after(senders.createdAt, senders.id, position)))
    .orderBy(...newestFirst(senders.createdAt, senders.id))
    .limit(limit);
  return rows.map(toRecord);
}

export interface NewSender {
  accountId: string;
  domainId: string;
  /** `Mailbox.address` and `Mailbox.key` (see parseMailbox). */
  email: string;
  emailKey: string;
  displayName: string | null;
  transportSecurityPolicy: TransportSecurityPolicy;
  now: Date;
}

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
  return db.transaction(async (tx) => {
    const [domain] = await tx
      .select({ ownershipStatus: domains.ownershipStatus, dkimStatus: domains.dkimStatus, dmarcStatus: domains.dmarcStatus })
      .from(domains)
      .where(and(eq(domains.id, input.domainId), eq(domains.accountId, input.accountId), isNull(domains.deletedAt)))
      .for('share');
    if (!domain) return { outcome: 'domain_gone' };
    const [sender] = await tx
      .insert(senders)
      .values({
        id: newId('sender'),
        accountId: input.accountId,
        domainId: input.domainId,
        email: input.email,
        emailKey: input.emailKey,
        displayName: input.displayName,
        transportSecurityPolicy: input.transportSecurityPolicy,
        createdAt: input.now,
        updatedAt: input.now,
      })
      .onConflictDoNothing({ target: [senders.domainId, senders.emailKey], where: sql`deleted_at is null` })
      .returning();
    if (!sender) return { outcome: 'already_exists' };
    return { outcome: 'created', sender: { ...sender, domainReady: isDomainReady(domain) } };
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
  db: DbOrTx,
  accountId: string,
  id: string,
  changes: SenderChanges,
  now: Date,
): Promise<SenderRecord | undefined> {
  const set: Partial<typeof senders.$inferInsert> = {};
  const differs = [];
  if (changes.displayName !== undefined) {
    set.displayName = changes.displayName;
    differs.push(sql`${senders.displayName} is distinct from ${changes.displayName}`);
  }
  if (changes.transportSecurityPolicy !== undefined) {
    set.transportSecurityPolicy = changes.transportSecurityPolicy;
    differs.push(sql`${senders.transportSecurityPolicy} <> ${changes.transportSecurityPolicy}`);
  }
  if (differs.length > 0) {
    await db
      .update(senders)
      .set({ ...set, updatedAt: now })
      .where(and(eq(senders.id, id), eq(senders.accountId, accountId), isNull(senders.deletedAt), or(...differs)));
  }
  return findSender(db, accountId, id);
}

/** Disables and soft-deletes the sender; false when it was not active. Its email history stays. */
export async function deleteSender(db: DbOrTx, accountId: string, id: string, now: Date): Promise<boolean> {
  if (!isIdOf('sender', id)) return false;
  const deleted = await db
    .update(senders)
    .set({ configuredState: 'disabled', deletedAt: now, updatedAt: now })
    .where(and(eq(senders.id, id), eq(senders.accountId, accountId), isNull(senders.deletedAt)))
    .returning({ id: senders.id });
  return deleted.length > 0;
}
