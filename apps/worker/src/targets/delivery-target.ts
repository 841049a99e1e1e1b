import type { DeliveryOutcome } from '@mailer/domain';
import type { DeliveryContext, Lease, LeasedDelivery } from '@mailer/operations';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';
import type { AttemptRecorder } from '../jobs/attempt-recorder';
import type { KeptLease } from '../jobs/lease-keeper';

/**
 * A message whose deliveries this daemon holds under its lease, as a target is given it
 * (HeldMessage in jobs/deliver-message). Every record or release of its deliveries goes
 * through `recorder`; the message settles once each settlement it expects has been tracked
 * and has ended, and then releases the lease and schedules its next obligation.
 */
export interface HeldMessage {
  readonly deps: WorkerDependencies;
  readonly context: DeliveryContext;
  readonly lease: Lease;
  /** The lease renewed while the message is held: `stopped` once it may no longer be used, `signal` aborts a transaction then. */
  readonly kept: KeptLease;
  readonly log: Logger;
  readonly recorder: AttemptRecorder;
  /** When the message was taken: decisions made without a transaction are timed from it. */
  readonly startedAt: Date;
  /**
   * The message as `group`'s transaction sends it: read and built once for all its
   * transactions, and signed once, or once per delivery when each delivery gets header fields
   * of its own (perDeliveryHeaders; the group is then one delivery).
   */
  compose(group: readonly LeasedDelivery[]): Promise<Buffer>;
  /** Records `outcome` for `group` without a transaction (not tracked: pass it to `track`). */
  decide(group: LeasedDelivery[], outcome: DeliveryOutcome): Promise<void>;
  /**
   * How many settlements (`track` calls) the message waits for. Called once, before the
   * first `track`, since a settlement may end before the target has handed on every group.
   */
  expect(settlements: number): void;
  /**
   * Follows one settlement (a record, a release, or nothing left to record); the last one
   * settles the message. The result never rejects: a failure is the message's to report.
   */
  track(work: Promise<void>): Promise<void>;
}

/**
 * Where a held message's deliveries go: SMTP to the recipients' MX hosts (smtpTarget), or a
 * simulation for a test message (testModeTarget); a smarthost relay or a forward to the
 * inbound service would be one more implementation, chosen by HeldMessage in place of SMTP.
 *
 * Contract: `deliver` settles every leased delivery of `message` exactly once, each by a
 * record (an outcome, through `message.recorder`) or a release (given back unattempted),
 * never both and never neither. It first calls `message.expect` with the number of
 * settlements it will make, then passes each to `message.track`, now or later (a group may
 * wait in the scheduler). Deliveries found no longer leased right before a transaction
 * (leaseGate) are not this daemon's any more: their settlement records nothing. A target
 * that opens a transaction checks its group with leaseGate right before it, and aborts it on
 * `message.kept.signal`. `deliver` resolves once every delivery is recorded or handed on (it
 * need not wait for the records); a rejection fails the job, and takeMessage releases the lease.
 */
export interface DeliveryTarget {
  deliver(message: HeldMessage): Promise<void>;
}
