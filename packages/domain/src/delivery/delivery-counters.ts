import { isTerminal, type DeliveryStatus } from './message-status';

/**
 * The counters kept beside the deliveries, so that reading them never counts rows:
 * per account, `active` (deliveries not yet terminal, what the plan's active-delivery
 * limit reads); per sender, `accepted`, `bounced` and `failed` (deliveries that ended so,
 * kept after retention deletes them; an accepted delivery a later DSN bounces moves from
 * `accepted` to `bounced`) and `deferred` (deliveries deferred now).
 * Every writer of deliveries moves them by the deltas of the transitions it makes, in the
 * same transaction.
 */
export interface CounterDeltas {
  active: number;
  accepted: number;
  bounced: number;
  failed: number;
  deferred: number;
}

/** A delivery's change of status: `from` null when it is created. */
export interface StatusTransition {
  from: DeliveryStatus | null;
  to: DeliveryStatus;
}

export const NO_CHANGE: Readonly<CounterDeltas> = Object.freeze({ active: 0, accepted: 0, bounced: 0, failed: 0, deferred: 0 });

/** How far the transitions move each counter. Retention only deletes terminal deliveries: it moves none. */
export function counterDeltas(transitions: Iterable<StatusTransition>): CounterDeltas {
  const deltas = { ...NO_CHANGE };
  for (const { from, to } of transitions) {
    if (from === to) continue;
    deltas.active += Number(!isTerminal(to)) - Number(from !== null && !isTerminal(from));
    deltas.deferred += Number(to === 'deferred') - Number(from === 'deferred');
    if (to === 'accepted' || to === 'bounced' || to === 'failed') deltas[to] += 1;
    if (from === 'accepted' || from === 'bounced' || from === 'failed') deltas[from] -= 1;
  }
  return deltas;
}

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
