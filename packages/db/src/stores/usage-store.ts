import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../database';
import { accountUsage } from '../schema/intake';

export interface UsageFigures {
  plan: { perMinute: number; perHour: number; perDay: number; per30Days: number; maxActive: number };
  /** Recipient-emails the account has ever had accepted. */
  total: number;
  /** Recipient deliveries in queued, sending or deferred. */
  active: number;
  lastAcceptedAt: Date | null;
  /** Per requested window: recipient-emails accepted in (now - seconds, now] and the oldest of them. */
  windows: { seconds: number; used: number; oldestAt: Date | null }[];
}

const toDate = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));

/**
 * The figures statement. `u` is the account's usage row, read locked (`FOR UPDATE OF u`)
 * or not. The window subqueries read the statement's snapshot; when the statement waited
 * for the lock, rows the previous holder committed meanwhile are not in it, but they are
 * the newest of all (usage instants only grow under this lock), so they can only be
 * missing from a window's end. Hence per window: usage = total - (cumulative before the
 * window's first visible row), or, when no row of the window is visible, total - the
 * total as of the snapshot (`seen_total`); `total` itself comes from the locked row,
 * which is always its latest version.
 */
function figuresQuery(accountId: string, now: Date, windowSeconds: readonly number[], lock: boolean) {
  const firstInWindow = windowSeconds.map(
    (seconds, i) => sql`(select json_build_object('before', r.cumulative - r.recipients, 'at', r.accepted_at)
      from recipient_usage r
      where r.account_id = ${accountId} and r.accepted_at > ${new Date(now.getTime() - seconds * 1000)}
      order by r.accepted_at, r.cumulative limit 1) as ${sql.raw(`w${i}`)}`,
  );
  return sql`
    select p.per_minute, p.per_hour, p.per_day, p.per_30_days, p.max_active,
           u.recipients_total as total, u.active_deliveries as active, u.last_accepted_at,
           (select s.recipients_total from account_usage s where s.account_id = ${accountId}) as seen_total,
           ${sql.join(firstInWindow, sql`, `)}
    from account_usage u
    join accounts a on a.id = u.account_id
    join plans p on p.id = a.plan_id
    where u.account_id = ${accountId}
    ${lock ? sql`for update of u` : sql``}`;
}

function toFigures(row: Record<string, unknown>, windowSeconds: readonly number[]): UsageFigures {
  const total = Number(row.total);
  const seenTotal = Number(row.seen_total ?? row.total);
  const lastAcceptedAt = toDate(row.last_accepted_at);
  return {
    plan: {
      perMinute: Number(row.per_minute),
      perHour: Number(row.per_hour),
      perDay: Number(row.per_day),
      per30Days: Number(row.per_30_days),
      maxActive: Number(row.max_active),
    },
    total,
    active: Number(row.active),
    lastAcceptedAt,
    windows: windowSeconds.map((seconds, i) => {
      const first = row[`w${i}`] as { before: number; at: string } | null;
      if (first) return { seconds, used: total - Number(first.before), oldestAt: new Date(first.at) };
      // Only usage committed after the snapshot is in the window; its oldest instant is not known, the newest is.
      return { seconds, used: total - seenTotal, oldestAt: total > seenTotal ? lastAcceptedAt : null };
    }),
  };
}

async function figures(db: DbOrTx, accountId: string, now: Date, windowSeconds: readonly number[], lock: boolean) {
  const result = await db.execute(figuresQuery(accountId, now, windowSeconds, lock));
  const row = result.rows[0] as Record<string, unknown> | undefined;
  return row && toFigures(row, windowSeconds);
}

/** The account's usage row, created on first use (the account's first message). */
async function ensureUsageRow(db: DbOrTx, accountId: string): Promise<void> {
  await db.insert(accountUsage).values({ accountId }).onConflictDoNothing();
}

/** Usage as it stands, without locking: for answers that write nothing (replays, conflicts). */
export async function readUsage(db: DbOrTx, accountId: string, now: Date, windowSeconds: readonly number[]): Promise<UsageFigures> {
  const found = await figures(db, accountId, now, windowSeconds, false);
  if (found) return found;
  await ensureUsageRow(db, accountId);
  return (await figures(db, accountId, now, windowSeconds, false))!;
}

/**
 * Locks the account's usage row until the transaction ends and reads the figures, in
 * one statement. The lock serializes check-and-record per account across every API
 * process; take it as late as possible and commit soon after.
 */
export async function lockUsage(tx: DbOrTx, accountId: string, now: Date, windowSeconds: readonly number[]): Promise<UsageFigures> {
  const found = await figures(tx, accountId, now, windowSeconds, true);
  if (found) return found;
  await ensureUsageRow(tx, accountId);
  return (await figures(tx, accountId, now, windowSeconds, true))!;
}

/**
 * For each running-total threshold, when the usage that brought the total to it was
 * accepted (null when no such usage is recorded): a window refusing a request frees
 * enough room once that usage has left it.
 */
export async function usageReachedAt(db: DbOrTx, accountId: string, thresholds: number[]): Promise<(Date | null)[]> {
  if (thresholds.length === 0) return [];
  const result = await db.execute(sql`
    select (select r.accepted_at from recipient_usage r
            where r.account_id = ${accountId} and r.cumulative >= t.threshold
            order by r.cumulative limit 1) as at
    from unnest(${`{${thresholds.join(',')}}`}::bigint[]) with ordinality as t(threshold, n)
    order by t.n`);
  return result.rows.map((r) => toDate((r as { at: unknown }).at));
}
