import type { EmailType, RecentTestMessage } from '@mailer/domain';
import { timestampsParam, type Row } from '../database';
import type { Transaction } from '../transaction';

export interface UsageFigures {
  plan: { perMinute: number; perHour: number; perDay: number; per30Days: number; maxActive: number };
  /** Recipient-emails the account has ever had accepted. */
  total: number;
  /** Recipient deliveries in queued, sending or deferred. */
  active: number;
  lastAcceptedAt: Date | null;
  /** The account's streams whose sending is paused (docs/api-decisions.md, "Reputation", "Streams"): they take no new mail. */
  pausedStreams: ReadonlySet<EmailType>;
  /** Per requested window: recipient-emails accepted in (now - seconds, now] and the oldest of them. */
  windows: { seconds: number; used: number; oldestAt: Date | null }[];
}

/**
 * The account's usage figures, to be sent right after lockAccountIntake (lock-order) in the
 * same round trip: a statement sees what was committed before it started, so once the
 * lock is granted this reads every usage row the previous intake batch wrote. Only intake
 * raises the active deliveries; a delivery's record that lowers them meanwhile makes the
 * figures read high by what it has not committed yet, never low. Every account has its row
 * from its creation (createAccount).
 *
 * Per window, its first usage row gives the running total before it: usage in the window
 * is the account's total minus that (recipient_usage.cumulative grows with accepted_at,
 * see the intake operation).
 */
export function usageFigures(tx: Transaction, accountId: string, now: Date, windowSeconds: readonly number[]) {
  const starts = windowSeconds.map((seconds) => new Date(now.getTime() - seconds * 1000));
  return tx.sql`
    select p.per_minute, p.per_hour, p.per_day, p.per_30_days, p.max_active,
           u.recipients_total, u.active_deliveries, u.last_accepted_at,
           array(select s.stream from account_streams s where s.account_id = u.account_id and s.sending_status = 'paused') as paused_streams,
           (select json_agg((select json_build_object('before', r.cumulative - r.recipients, 'at', r.accepted_at)
                               from recipient_usage r
                              where r.account_id = u.account_id and r.accepted_at > w.since
                              order by r.accepted_at, r.cumulative limit 1) order by w.n)
              from unnest(${timestampsParam(starts)}::text[]::timestamptz[]) with ordinality as w(since, n)) as windows
      from account_usage u
      join accounts a on a.id = u.account_id
      join plans p on p.id = a.plan_id
     where u.account_id = ${accountId}`;
}

/** The figures usageFigures read (every account has its usage row: createAccount). */
export function usageFiguresFrom(rows: readonly Row[], windowSeconds: readonly number[]): UsageFigures {
  const row = rows[0];
  if (!row) throw new Error('the account has no usage row: createAccount makes it');
  const total = Number(row.recipients_total);
  const firsts = row.windows as ({ before: number | string; at: string } | null)[];
  return {
    plan: {
      perMinute: row.per_minute,
      perHour: row.per_hour,
      perDay: row.per_day,
      per30Days: row.per_30_days,
      maxActive: row.max_active,
    },
    total,
    active: row.active_deliveries,
    lastAcceptedAt: row.last_accepted_at,
    pausedStreams: new Set(row.paused_streams as EmailType[]),
    windows: windowSeconds.map((seconds, i) => {
      const first = firsts[i];
      return first ? { seconds, used: total - Number(first.before), oldestAt: new Date(first.at) } : { seconds, used: 0, oldestAt: null };
    }),
  };
}

/**
 * For each running-total threshold, when the usage that brought the total to it was
 * accepted (null when no such usage is recorded): a window refusing a request frees
 * enough room once that usage has left it. Read with usageReachedAtFrom.
 */
export function usageReachedAt(tx: Transaction, accountId: string, thresholds: number[]) {
  return tx.sql`
    select (select r.accepted_at from recipient_usage r
             where r.account_id = ${accountId} and r.cumulative >= t.threshold
             order by r.cumulative limit 1) as at
      from unnest(${thresholds}::bigint[]) with ordinality as t(threshold, n)
     order by t.n`;
}

export const usageReachedAtFrom = (rows: readonly Row[]): (Date | null)[] => rows.map((r) => r.at ?? null);

/**
 * The account's test messages accepted since `since`, oldest first, with their recipients: what
 * the test-mode bound is judged on (docs/api-decisions.md, "Test mode"). Read under the
 * account's intake lock, which orders test requests as it orders live ones.
 */
export function recentTestMessages(tx: Transaction, accountId: string, since: Date) {
  return tx.sql`
    select e.created_at, (select count(*) from deliveries d where d.email_id = e.id)::int as recipients
      from emails e
     where e.account_id = ${accountId} and e.test and e.created_at > ${since}
     order by e.created_at, e.id`;
}

export const recentTestMessagesFrom = (rows: readonly Row[]): RecentTestMessage[] =>
  rows.map((r) => ({ at: r.created_at, recipients: r.recipients }));
