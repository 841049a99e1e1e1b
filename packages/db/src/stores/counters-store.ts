import type { CounterDeltas } from '@mailer/domain';
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

export function moveSenderCounts(tx: Transaction, bySender: ReadonlyMap<string, CounterDeltas>) {
  const moved = [...bySender].filter(([, d]) => d.accepted !== 0 || d.bounced !== 0 || d.failed !== 0 || d.deferred !== 0);
  if (moved.length === 0) return [];
  const column = (pick: (d: CounterDeltas) => number) => moved.map(([, d]) => pick(d));
  return [
    tx.sql`
      update senders s
         set accepted_count = s.accepted_count + x.accepted, bounced_count = s.bounced_count + x.bounced,
             failed_count = s.failed_count + x.failed, deferred_count = s.deferred_count + x.deferred
        from unnest(${moved.map(([id]) => id)}::text[], ${column((d) => d.accepted)}::int[], ${column((d) => d.bounced)}::int[],
                    ${column((d) => d.failed)}::int[], ${column((d) => d.deferred)}::int[])
             as x(sender_id, accepted, bounced, failed, deferred)
       where s.id = x.sender_id`,
  ];
}
