import { reputationHour, type EmailType, type ReputationWindow } from '@mailer/domain';
import { timestampsParam, type Statement } from '../database';
import { enterLevel } from '../lock-order';
import type { Transaction } from '../transaction';

/** What one change adds to its account's counts for its message's stream (reputationCountOf), at the time of the change. */
export interface ReputationCount {
  accountId: string;
  stream: EmailType;
  at: Date;
  counts: ReputationWindow;
}

/**
 * Adds the transition writer's reputation counts to their accounts' hourly rows
 * (docs/api-decisions.md, "Reputation"), one row per account, stream and hour, created at its first
 * count; lock-order level 3a, rows in key order, after the senders and before the outbox.
 */
export function addReputationCounts(tx: Transaction, counted: readonly ReputationCount[]): Statement[] {
  if (counted.length === 0) return [];
  const sums = new Map<string, { accountId: string; stream: EmailType; hour: Date; counts: ReputationWindow }>();
  for (const c of counted) {
    const hour = reputationHour(c.at);
    const key = `${c.accountId}|${c.stream}|${hour.toISOString()}`;
    const sum = sums.get(key) ?? { accountId: c.accountId, stream: c.stream, hour, counts: { terminal: 0, accepted: 0, hardBounces: 0, complaints: 0 } };
    sum.counts = {
      terminal: sum.counts.terminal + c.counts.terminal,
      accepted: sum.counts.accepted + c.counts.accepted,
      hardBounces: sum.counts.hardBounces + c.counts.hardBounces,
      complaints: sum.counts.complaints + c.counts.complaints,
    };
    sums.set(key, sum);
  }
  enterLevel(tx, 'account_reputation_hours', [...sums.keys()]);
  const rows = [...sums.keys()].sort().map((k) => sums.get(k)!);
  const column = (pick: (c: ReputationWindow) => number) => rows.map((r) => pick(r.counts));
  return [
    tx.sql`
      insert into account_reputation_hours as h (account_id, stream, hour, terminal, accepted, hard_bounces, complaints)
      select * from unnest(${rows.map((r) => r.accountId)}::text[], ${rows.map((r) => r.stream)}::text[], ${timestampsParam(rows.map((r) => r.hour))}::text[]::timestamptz[],
                           ${column((c) => c.terminal)}::int[], ${column((c) => c.accepted)}::int[],
                           ${column((c) => c.hardBounces)}::int[], ${column((c) => c.complaints)}::int[])
      order by 1, 2, 3
      on conflict (account_id, stream, hour) do update
         set terminal = h.terminal + excluded.terminal, accepted = h.accepted + excluded.accepted,
             hard_bounces = h.hard_bounces + excluded.hard_bounces, complaints = h.complaints + excluded.complaints`,
  ];
}
