import { addressKey, type SuppressionReason } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import type { Transaction } from '../transaction';
import { newestFirst, type PagePosition } from './keyset';

export interface Suppression {
  email: string;
  reason: SuppressionReason;
  emailId: string | null;
  createdAt: Date;
}

const toSuppression = (r: Row): Suppression => ({ email: r.email, reason: r.reason, emailId: r.email_id, createdAt: r.created_at });

/** A page of the account's suppressions, newest first; `emailKey` narrows it to one address. Keyset ids are the keys. */
export async function listSuppressions(
  db: Queryable,
  accountId: string,
  options: { emailKey?: string; position?: PagePosition; limit: number },
): Promise<(Suppression & { id: string })[]> {
  const page = newestFirst(db, options.position, options.limit);
  const rows = await db`
    select email, reason, email_id, created_at, id
      from (select email, reason, email_id, created_at, email_key as id from suppressions where account_id = ${accountId}) s
     where ${options.emailKey === undefined ? db`true` : db`id = ${options.emailKey}`} ${page.after}
     ${page.page}`;
  return rows.map((r) => ({ ...toSuppression(r), id: r.id as string }));
}

export async function findSuppression(db: Queryable, accountId: string, emailKey: string): Promise<Suppression | undefined> {
  const [row] = await db`select email, reason, email_id, created_at from suppressions where account_id = ${accountId} and email_key = ${emailKey}`;
  return row && toSuppression(row);
}

/** Adds the address unless it is already there; says which, with the entry as stored. */
export async function addSuppression(
  db: Queryable,
  accountId: string,
  entry: { email: string; emailKey: string; reason: SuppressionReason; at: Date },
): Promise<{ created: boolean; suppression: Suppression }> {
  const [inserted] = await db`
    insert into suppressions (account_id, email_key, email, reason, created_at)
    values (${accountId}, ${entry.emailKey}, ${entry.email}, ${entry.reason}, ${entry.at})
    on conflict do nothing
    returning email, reason, email_id, created_at`;
  if (inserted) return { created: true, suppression: toSuppression(inserted) };
  return { created: false, suppression: (await findSuppression(db, accountId, entry.emailKey))! };
}

/** False when the address was not suppressed. */
export async function removeSuppression(db: Queryable, accountId: string, emailKey: string): Promise<boolean> {
  const deleted = await db`delete from suppressions where account_id = ${accountId} and email_key = ${emailKey}`;
  return deleted.count > 0;
}

/** Which of these recipient keys the account suppresses (intake: read with suppressedKeysFrom). */
export function suppressedAmong(tx: Transaction, accountId: string, emailKeys: string[]) {
  return tx.sql`select email_key from suppressions where account_id = ${accountId} and email_key = any(${emailKeys}::text[])`;
}

export const suppressedKeysFrom = (rows: readonly Row[]): Set<string> => new Set(rows.map((r) => r.email_key as string));

/** A recipient to suppress, with the message that made it (transition writer). */
export interface SuppressionEntry {
  reason: Exclude<SuppressionReason, 'manual'>;
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
  const keyed = entries.map((e) => ({ ...e, key: `${e.accountId} ${addressKey(e.email)}` }));
  const sorted = keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return tx.sql`
    insert into suppressions (account_id, email_key, email, reason, email_id, created_at)
    select x.account_id, x.email_key, x.email, x.reason, x.email_id, x.at::timestamptz
      from unnest(${sorted.map((e) => e.accountId)}::text[], ${sorted.map((e) => addressKey(e.email))}::text[], ${sorted.map((e) => e.email)}::text[],
                  ${sorted.map((e) => e.reason)}::text[], ${sorted.map((e) => e.emailId)}::text[], ${sorted.map((e) => e.at.toISOString())}::text[])
           with ordinality as x(account_id, email_key, email, reason, email_id, at, n)
     order by x.n
        on conflict do nothing`;
}
