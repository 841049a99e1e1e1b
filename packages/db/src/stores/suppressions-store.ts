import { addressKey, suppressesStream, type EmailType, type SuppressionReason } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import type { Transaction } from '../transaction';
import { newestFirst, type PagePosition } from './keyset';

export interface Suppression {
  email: string;
  reason: SuppressionReason;
  /** The stream it holds for; null for every stream (docs/api-decisions.md, "Streams"). */
  stream: EmailType | null;
  emailId: string | null;
  createdAt: Date;
}

const toSuppression = (r: Row): Suppression => ({ email: r.email, reason: r.reason, stream: r.stream, emailId: r.email_id, createdAt: r.created_at });

/** Entries that hold for `stream` (its own and every stream's); all entries when undefined. */
const holdingFor = (db: Queryable, stream: EmailType | undefined) => (stream === undefined ? db`true` : db`(stream is null or stream = ${stream})`);

/**
 * A page of the account's suppressions, newest first; `emailKey` narrows it to one address and
 * `stream` to the entries that hold for that stream. Keyset ids are the key and the stream,
 * which together name one entry (a stream is one of two words, or empty for every stream).
 */
export async function listSuppressions(
  db: Queryable,
  accountId: string,
  options: { emailKey?: string; stream?: EmailType; position?: PagePosition; limit: number },
): Promise<(Suppression & { id: string })[]> {
  const page = newestFirst(db, options.position, options.limit);
  const rows = await db`
    select email, reason, stream, email_id, created_at, id
      from (select email, reason, stream, email_id, created_at, email_key, email_key || ' ' || coalesce(stream, '') as id
              from suppressions where account_id = ${accountId} and ${holdingFor(db, options.stream)}) s
     where ${options.emailKey === undefined ? db`true` : db`email_key = ${options.emailKey}`} ${page.after}
     ${page.page}`;
  return rows.map((r) => ({ ...toSuppression(r), id: r.id as string }));
}

/**
 * The address's entry that holds for `stream` (every stream's first), or, with no stream, its
 * most general entry: every stream's, then the transactional stream's, then the broadcast one's.
 */
export async function findSuppression(db: Queryable, accountId: string, emailKey: string, stream?: EmailType): Promise<Suppression | undefined> {
  const [row] = await db`
    select email, reason, stream, email_id, created_at from suppressions
     where account_id = ${accountId} and email_key = ${emailKey} and ${holdingFor(db, stream)}
     order by stream nulls first limit 1`;
  return row && toSuppression(row);
}

/** Adds the address for the stream (null: every stream) unless that entry is already there; says which, with the entry as stored. */
export async function addSuppression(
  db: Queryable,
  accountId: string,
  entry: { email: string; emailKey: string; reason: SuppressionReason; stream: EmailType | null; at: Date },
): Promise<{ created: boolean; suppression: Suppression }> {
  const [inserted] = await db`
    insert into suppressions (account_id, email_key, email, reason, stream, created_at)
    values (${accountId}, ${entry.emailKey}, ${entry.email}, ${entry.reason}, ${entry.stream}, ${entry.at})
    on conflict do nothing
    returning email, reason, stream, email_id, created_at`;
  if (inserted) return { created: true, suppression: toSuppression(inserted) };
  const [existing] = await db`
    select email, reason, stream, email_id, created_at from suppressions
     where account_id = ${accountId} and email_key = ${entry.emailKey} and stream is not distinct from ${entry.stream}`;
  return { created: false, suppression: toSuppression(existing!) };
}

/**
 * Removes the address's entries that hold for `stream` (its own and every stream's: mail of that
 * stream may reach it again), or every entry of the address with no stream. False when none was there.
 */
export async function removeSuppression(db: Queryable, accountId: string, emailKey: string, stream?: EmailType): Promise<boolean> {
  const deleted = await db`delete from suppressions where account_id = ${accountId} and email_key = ${emailKey} and ${holdingFor(db, stream)}`;
  return deleted.count > 0;
}

/** The entries of these recipient keys (intake: read with suppressedFrom). */
export function suppressedAmong(tx: Transaction, accountId: string, emailKeys: string[]) {
  return tx.sql`select email_key, stream from suppressions where account_id = ${accountId} and email_key = any(${emailKeys}::text[])`;
}

/** Whether a recipient key is suppressed for a message of a stream, as the entries read say (suppressesStream). */
export type SuppressedRecipient = (emailKey: string, stream: EmailType) => boolean;

export function suppressedFrom(rows: readonly Row[]): SuppressedRecipient {
  const streams = new Map<string, (EmailType | null)[]>();
  for (const r of rows) streams.set(r.email_key, [...(streams.get(r.email_key) ?? []), r.stream]);
  return (emailKey, stream) => (streams.get(emailKey) ?? []).some((entry) => suppressesStream(entry, stream));
}

/** What nothing is suppressed for (test messages look nothing up). */
export const NOTHING_SUPPRESSED: SuppressedRecipient = () => false;

/** A recipient to suppress, with the message that made it (transition writer). */
export interface SuppressionEntry {
  reason: Exclude<SuppressionReason, 'manual'>;
  /** The stream it holds for (suppressedStream); null for every stream. */
  stream: EmailType | null;
  accountId: string;
  email: string;
  emailId: string;
  at: Date;
}

/**
 * Suppresses recipients whose deliveries bounced for a hard cause (`hard_bounce`) or drew a
 * complaint (`complaint`), in the transaction that records it; an address already listed
 * keeps its entry. Keys in order, so that transactions adding overlapping sets queue
 * instead of deadlocking.
 */
export function suppressRecipients(tx: Transaction, entries: readonly SuppressionEntry[]) {
  const keyed = entries.map((e) => ({ ...e, key: `${e.accountId} ${addressKey(e.email)} ${e.stream ?? ''}` }));
  const sorted = keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return tx.sql`
    insert into suppressions (account_id, email_key, email, reason, stream, email_id, created_at)
    select x.account_id, x.email_key, x.email, x.reason, x.stream, x.email_id, x.at::timestamptz
      from unnest(${sorted.map((e) => e.accountId)}::text[], ${sorted.map((e) => addressKey(e.email))}::text[], ${sorted.map((e) => e.email)}::text[],
                  ${sorted.map((e) => e.reason)}::text[], ${sorted.map((e) => e.stream)}::text[], ${sorted.map((e) => e.emailId)}::text[],
                  ${sorted.map((e) => e.at.toISOString())}::text[])
           with ordinality as x(account_id, email_key, email, reason, stream, email_id, at, n)
     order by x.n
        on conflict do nothing`;
}
