import { sql, type SQL } from 'drizzle-orm';

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
 * Locks the account's usage row until the transaction ends and reads the figures, in
 * one statement: no row when the account has none yet (see ensureUsageRowStatement). The
 * lock serializes check-and-record per account across every API process; take it as
 * late as possible and commit soon after.
 *
 * The window subqueries read the statement's snapshot; when the statement waited for the
 * lock, rows the previous holder committed meanwhile are not in it, but they are the
 * newest of all (usage instants only grow under this lock), so they can only be missing
 * from a window's end. Hence per window: usage = total - (cumulative before the window's
 * first visible row), or, when no row of the window is visible, total - the total as of
 * the snapshot (`seen_total`); `total` itself comes from the locked row (`u`), which is
 * always its latest version.
 */
export function lockUsageStatement(accountId: string, now: Date, windowSeconds: readonly number[]): SQL {
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
    for update of u`;
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

/** The figures lockUsageStatement read, or undefined when the account had no usage row. */
export function usageFiguresFrom(result: { rows: unknown[] }, windowSeconds: readonly number[]): UsageFigures | undefined {
  const row = result.rows[0] as Record<string, unknown> | undefined;
  return row && toFigures(row, windowSeconds);
}

/** Creates the account's usage row on first use (the account's first message). */
export function ensureUsageRowStatement(accountId: string): SQL {
  return sql`insert into account_usage (account_id) values (${accountId}) on conflict do nothing`;
}

/**
 * For each running-total threshold, when the usage that brought the total to it was
 * accepted (null when no such usage is recorded): a window refusing a request frees
 * enough room once that usage has left it. Read with usageReachedAtFrom.
 */
export function usageReachedAtStatement(accountId: string, thresholds: number[]): SQL {
  return sql`
    select (select r.accepted_at from recipient_usage r
            where r.account_id = ${accountId} and r.cumulative >= t.threshold
            order by r.cumulative limit 1) as at
    from unnest(${`{${thresholds.join(',')}}`}::bigint[]) with ordinality as t(threshold, n)
    order by t.n`;
}

export const usageReachedAtFrom = (result: { rows: unknown[] }): (Date | null)[] => result.rows.map((r) => toDate((r as { at: unknown }).at));
