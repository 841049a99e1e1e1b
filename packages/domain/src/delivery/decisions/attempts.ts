import type { DeliveryCause } from '../causes';
import type { AttemptRecord, DeliveryChanges, MessageDeliveries, Observation, Transition } from '../delivery-records';
import type { AttemptOutcome } from '../message-status';
import { heldBy } from './leases';

/** What happened to one leased delivery in an attempt, already passed through the retry policy. */
export interface DeliveryDecision {
  deliveryId: string;
  status: AttemptOutcome;
  cause: DeliveryCause | null;
  /** For `deferred`: when it is owed its next attempt. */
  nextAttemptAt?: Date;
  /** For `accepted`: a complaint follows at once (test mode's simulation, docs/api-decisions.md "Test mode"). */
  complained?: boolean;
}

/** One attempt's outcome for a message: the lease it was made under and what it decided for each delivery. */
export interface AttemptOutcomes {
  emailId: string;
  leaseToken: string;
  attempt: AttemptRecord;
  decisions: readonly DeliveryDecision[];
  /**
   * Written from the daemon's journal (docs/api-decisions.md, "Delivery", a record the database
   * did not take): the reply came, so it applies to a delivery still `sending` under any lease,
   * its own or a later one's, and whoever holds it now finds it recorded before sending it again.
   */
  journaled?: boolean;
}

/**
 * Attempts recorded (docs/api-decisions.md, "Delivery"): each decision whose delivery is still
 * `sending` under its attempt's lease becomes an `attempted` transition; one whose delivery was
 * taken over by another daemon meanwhile (its lease expired) changes nothing, unless journaled;
 * one that says a complaint followed adds it as an observation. Answers, in the order given, how
 * many decisions of each applied.
 */
export function recordAttempts(messages: ReadonlyMap<string, MessageDeliveries>, outcomes: readonly AttemptOutcomes[]): DeliveryChanges<number[]> {
  const transitions: Transition[] = [];
  const observations: Observation[] = [];
  const answer = outcomes.map((o) => {
    const held = new Set(
      messages
        .get(o.emailId)
        ?.deliveries.filter((d) => (o.journaled ? d.status === 'sending' : heldBy(d, o.leaseToken)))
        .map((d) => d.id),
    );
    const applied = o.decisions.filter((d) => held.has(d.deliveryId));
    for (const d of applied) {
      const at = o.attempt.endedAt;
      transitions.push({ reason: 'attempted', delivery: d.deliveryId, to: d.status, cause: d.cause, at, attempt: o.attempt, ...(d.nextAttemptAt ? { nextAttemptAt: d.nextAttemptAt } : {}) });
      if (d.complained) observations.push({ observation: 'complained', delivery: d.deliveryId, at });
    }
    return applied.length;
  });
  return { transitions, observations, answer };
}
