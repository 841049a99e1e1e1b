import { recordAttempts, type AttemptRecord, type DeliveryDecision } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';
import { messageAfter, type MessageAfter } from '../deliveries/transition-writer';
import type { Lease } from './delivery-store';

export type { DeliveryDecision };

/** One attempt to record: the lease it was made under and what it decided for each delivery. */
export interface AttemptWrite {
  lease: Lease;
  attempt: AttemptRecord;
  decisions: DeliveryDecision[];
  /** Written from the daemon's journal: it applies to a delivery still `sending` under any lease (see AttemptOutcomes). */
  journaled?: boolean;
}

export interface RecordedAttempt {
  /** Decisions applied: fewer than given when a lease was lost to another worker meanwhile. */
  applied: number;
  /** The message after the record (unchanged when nothing was applied). */
  message: Pick<MessageAfter, 'status' | 'terminal'>;
}

/**
 * Records attempts in one transaction (recordAttempts, docs/api-decisions.md, "Delivery"):
 * a decision whose delivery is no longer `sending` under its attempt's lease changes nothing.
 * Answers in the order given.
 */
export async function writeAttempts(db: Database, writes: readonly AttemptWrite[]): Promise<RecordedAttempt[]> {
  const { answer, messages } = await changeDeliveries(
    db,
    writes.map((w) => w.lease.emailId),
    (locked) =>
      recordAttempts(
        locked,
        writes.map((w) => ({ emailId: w.lease.emailId, leaseToken: w.lease.token, attempt: w.attempt, decisions: w.decisions, ...(w.journaled ? { journaled: true } : {}) })),
      ),
  );
  return writes.map((w, i) => ({ applied: answer[i]!, message: messages.get(w.lease.emailId) ?? messageAfter([]) }));
}
