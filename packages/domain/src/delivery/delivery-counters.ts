import { isTerminal, type DeliveryStatus } from './message-status';

/**
 * The statuses each sender keeps a count of (docs/api-decisions.md, "Data layer", Counters),
 * in its column `<status>_count`: deliveries that ended so (kept after retention deletes
 * them; an accepted delivery a later DSN bounces moves from `accepted` to `bounced`) and
 * those deferred now. A status counted here has its column in the senders table.
 */
export const SENDER_COUNTED_STATUSES = ['accepted', 'bounced', 'failed', 'deferred'] as const satisfies readonly DeliveryStatus[];
export type SenderCountedStatus = (typeof SENDER_COUNTED_STATUSES)[number];

/**
 * The counters kept beside the deliveries, so that reading them never counts rows: per
 * account, `active` (deliveries not yet terminal, what the plan's active-delivery limit
 * reads); per sender, one per SENDER_COUNTED_STATUSES. Every change of a delivery's status
 * moves them by its deltas, in the same transaction (the transition writer).
 */
export type CounterDeltas = { active: number } & Record<SenderCountedStatus, number>;

/** A delivery's change of status: `from` null when it is created. */
export interface StatusTransition {
  from: DeliveryStatus | null;
  to: DeliveryStatus;
}

export const NO_CHANGE: Readonly<CounterDeltas> = Object.freeze({
  active: 0,
  ...(Object.fromEntries(SENDER_COUNTED_STATUSES.map((status) => [status, 0])) as Record<SenderCountedStatus, number>),
});

const SENDER_COUNTED: ReadonlySet<DeliveryStatus> = new Set(SENDER_COUNTED_STATUSES);
const isSenderCounted = (status: DeliveryStatus | null): status is SenderCountedStatus => status !== null && SENDER_COUNTED.has(status);

/** How far the transitions move each counter. Retention only deletes terminal deliveries: it moves none. */
export function counterDeltas(transitions: Iterable<StatusTransition>): CounterDeltas {
  const deltas = { ...NO_CHANGE };
  for (const { from, to } of transitions) {
    if (from === to) continue;
    deltas.active += Number(!isTerminal(to)) - Number(from !== null && !isTerminal(from));
    if (isSenderCounted(to)) deltas[to] += 1;
    if (isSenderCounted(from)) deltas[from] -= 1;
  }
  return deltas;
}

/** Whether the deltas move any of a sender's counts. */
export const movesSenderCounts = (deltas: CounterDeltas): boolean => SENDER_COUNTED_STATUSES.some((status) => deltas[status] !== 0);

/** The deltas of each key's transitions (a key being an account or a sender). */
export function counterDeltasByKey(transitions: Iterable<StatusTransition & { key: string }>): Map<string, CounterDeltas> {
  const groups = new Map<string, StatusTransition[]>();
  for (const t of transitions) {
    const group = groups.get(t.key);
    if (group) group.push(t);
    else groups.set(t.key, [t]);
  }
  return new Map([...groups].map(([key, group]) => [key, counterDeltas(group)]));
}
