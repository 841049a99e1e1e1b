import { deriveMessageStatus, isTerminal, type AttemptOutcome, type DeliveryCause } from '@mailer/domain';
import type { Database } from '../database';
import { heldBy, lockedMessagesFrom, lockMessages, type DeliveryRow } from '../deliveries/locked-messages';
import { writeTransitions, type AttemptRecord, type MessageAfter, type Observation, type Transition } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';
import type { Lease } from './delivery-store';

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

/** One attempt to record: the lease it was made under and what it decided for each delivery. */
export interface AttemptWrite {
  lease: Lease;
  attempt: AttemptRecord;
  decisions: DeliveryDecision[];
  /**
   * Written from the daemon's journal (docs/api-decisions.md, "Delivery", a record the database
   * did not take): the reply came, so it applies to a delivery still `sending` under any lease,
   * its own or a later one's, and whoever holds it now finds it recorded before sending it again.
   */
  journaled?: boolean;
}

export interface RecordedAttempt {
  /** Decisions applied: fewer than given when a lease was lost to another worker meanwhile. */
  applied: number;
  /** The message after the record (unchanged when nothing was applied). */
  message: Pick<MessageAfter, 'status' | 'terminal'>;
}

/**
 * Records attempts in one transaction (docs/api-decisions.md, "Delivery"): the messages'
 * deliveries are locked (lock-order), and each decision whose delivery is still `sending`
 * under its attempt's lease goes through the transition writer (`attempted`); a decision
 * whose delivery was taken over by another worker meanwhile (its lease expired) changes
 * nothing (unless journaled); a decision that says a complaint followed adds it as an observation. Answers in the order given.
 */
export async function writeAttempts(db: Database, writes: readonly AttemptWrite[]): Promise<RecordedAttempt[]> {
  return inTransaction(db, async (tx) => {
    const { locked } = await tx.send({ locked: lockMessages(tx, writes.map((w) => w.lease.emailId)) });
    const messages = lockedMessagesFrom(locked);
    const applied = writes.map((w) => {
      const applies = (d: DeliveryRow) => (w.journaled ? d.status === 'sending' : heldBy(d, w.lease.token));
      const held = new Set(messages.get(w.lease.emailId)?.deliveries.filter(applies).map((d) => d.id));
      return w.decisions.filter((d) => held.has(d.deliveryId));
    });
    const transitions = writes.flatMap((w, i) =>
      applied[i]!.map(
        (d): Transition => ({ reason: 'attempted', delivery: d.deliveryId, to: d.status, cause: d.cause, at: w.attempt.endedAt, nextAttemptAt: d.nextAttemptAt, attempt: w.attempt }),
      ),
    );
    const observations = writes.flatMap((w, i) =>
      applied[i]!.filter((d) => d.complained).map((d): Observation => ({ observation: 'complained', delivery: d.deliveryId, at: w.attempt.endedAt })),
    );
    const written = writeTransitions(tx, { messages: [...messages.values()], transitions, observations });
    if (transitions.length > 0) await tx.commit(...written.statements);
    return writes.map((w, i) => {
      const untouched = () => {
        const status = deriveMessageStatus((messages.get(w.lease.emailId)?.deliveries ?? []).map((d) => d.status));
        return { status, terminal: isTerminal(status) };
      };
      return { applied: applied[i]!.length, message: written.messages.get(w.lease.emailId) ?? untouched() };
    });
  });
}
