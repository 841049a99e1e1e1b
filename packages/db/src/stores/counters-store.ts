import { movesSenderCounts, SENDER_COUNTED_STATUSES, type CounterDeltas, type SenderCountedStatus } from '@mailer/domain';
import type postgres from 'postgres';
import type { Transaction } from '../transaction';

/**
 * Statements moving the counters kept beside the deliveries (see counterDeltas in
 * @mailer/domain) by deltas the writer derived from its transitions. The caller holds the
 * rows' locks (lock-order: account_usage, then senders) and sends these in the same
 * transaction as the transitions; counters that do not move are not written.
 */
export function moveActiveCounts(tx: Transaction, byAccount: ReadonlyMap<string, CounterDeltas>) {
  const moved = [...byAccount].filter(([, d]) => d.active !== 0);
  if (moved.length === 0) return [];
  return [
    tx.sql`
      update account_usage u set active_deliveries = u.active_deliveries + x.delta
        from unnest(${moved.map(([id]) => id)}::text[], ${moved.map(([, d]) => d.active)}::int[]) as x(account_id, delta)
       where u.account_id = x.account_id`,
  ];
}

/** One column per SENDER_COUNTED_STATUSES (`<status>_count`), each moved by its delta. */
export function moveSenderCounts(tx: Transaction, bySender: ReadonlyMap<string, CounterDeltas>) {
  const moved = [...bySender].filter(([, d]) => movesSenderCounts(d));
  if (moved.length === 0) return [];
  const sql = tx.sql;
  const column = (status: SenderCountedStatus) => sql(`${status}_count`);
  const list = (parts: postgres.PendingQuery<postgres.Row[]>[]) => parts.reduce((all, part) => sql`${all}, ${part}`);
  const sets = list(SENDER_COUNTED_STATUSES.map((s) => sql`${column(s)} = s.${column(s)} + x.${sql(s)}`));
  const arrays = list(SENDER_COUNTED_STATUSES.map((s) => sql`${moved.map(([, d]) => d[s])}::int[]`));
  const names = list(SENDER_COUNTED_STATUSES.map((s) => sql`${sql(s)}`));
  return [
    sql`
      update senders s set ${sets}
        from unnest(${moved.map(([id]) => id)}::text[], ${arrays}) as x(sender_id, ${names})
       where s.id = x.sender_id`,
  ];
}
