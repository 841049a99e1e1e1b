import { decideRetry, deriveMessageStatus, type DeliveryOutcome, type RetryPolicy } from '@mailer/domain';
import {
  applyDecisions,
  exclusiveView,
  isDatabaseUnavailable,
  recordAttempt,
  type DeliveryDecision,
  type DeliveryRowState,
  releaseLease,
  type Lease,
  type LeasedDelivery,
} from '@mailer/db';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';

/**
 * A record that fails because the database is away (a crash, a restart, a stalled round trip) is
 * written again this many times, this far apart: the message has gone out, and a record lost
 * would have the delivery attempted again once its lease ran out, a duplicate. Under the lease
 * token, a record that comes too late (the lease taken over) changes nothing.
 */
const RECORD_TRIES = 4;
const RECORD_RETRY_MS = 2_000;

export interface AttemptFacts {
  startedAt: Date;
  tls: boolean;
  mxHost: string | null;
  /** Why a TLS negotiation failed during the attempt (see TransactionReport). */
  tlsFailure?: string;
}

/**
 * Records a job's attempts for one lease, one at a time and in the order they end, so
 * each derives the message status from everything recorded before it. While the lease
 * covers every delivery that is not terminal, the job's own view of the message is
 * enough and each record is a single statement.
 */
export class AttemptRecorder {
  private view: DeliveryRowState[] | undefined;
  private last: Promise<unknown> = Promise.resolve();
  /** Whether the message was terminal after the latest record. */
  terminal = false;

  constructor(
    private readonly deps: WorkerDependencies,
    private readonly lease: Lease,
    private readonly log: Logger,
  ) {
    this.view = exclusiveView(lease, deps.now());
  }

  /** Passes deferrals through the retry policy, then writes the attempt (see recordAttempt). */
  record(group: LeasedDelivery[], outcomeOf: (delivery: LeasedDelivery) => DeliveryOutcome, facts: AttemptFacts): Promise<void> {
    const next = this.last.then(() => this.writeUntilStored(group, outcomeOf, facts));
    this.last = next.catch(() => undefined);
    return next;
  }

  /**
   * Gives deliveries back unattempted (shutdown, or a lease not renewed in time); the job's
   * view of the message no longer holds.
   */
  release(group: LeasedDelivery[], reason: string): Promise<void> {
    const next = this.last.then(async () => {
      this.view = undefined;
      await releaseLease(this.deps.db, this.lease, group.map((d) => d.id), this.deps.now());
      this.log.info('lease released', { recipients: group.length, reason });
    });
    this.last = next.catch(() => undefined);
    return next;
  }

  private async writeUntilStored(group: LeasedDelivery[], outcomeOf: (delivery: LeasedDelivery) => DeliveryOutcome, facts: AttemptFacts): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(group, outcomeOf, facts);
      } catch (error) {
        if (attempt >= RECORD_TRIES || !isDatabaseUnavailable(error)) throw error;
        this.log.warn('attempt not recorded, database unavailable; trying again', { error: (error as Error).message, try: attempt });
        // What the job knew of the message may be stale now: the next record reads it again.
        this.view = undefined;
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  private async write(group: LeasedDelivery[], outcomeOf: (delivery: LeasedDelivery) => DeliveryOutcome, facts: AttemptFacts): Promise<void> {
    const endedAt = this.deps.now();
    const outcomes = group.map(outcomeOf);
    // One jitter draw per transaction: deliveries deferred together come back together.
    const draw = Math.random();
    const policy = { scheduleMs: this.deps.config.worker.retryScheduleMs, maxDeliveryAgeMs: this.deps.config.worker.maxDeliveryAgeMs };
    const decisions = group.map((delivery, i) => decide(policy, delivery, outcomes[i]!, endedAt, draw));
    const outcome = deriveMessageStatus(outcomes.map((o) => o.outcome)) as DeliveryDecision['status'];
    const cause = outcomes.find((o) => o.outcome === outcome)?.cause ?? null;
    const recorded = await recordAttempt(this.deps.db, this.lease, { ...facts, endedAt, outcome, cause }, decisions, this.view, (w) =>
      this.deps.attempts.submit(w),
    );
    this.view = this.view && recorded.applied === decisions.length ? applyDecisions(this.view, decisions, endedAt) : undefined;
    this.deps.metrics.attempts.inc({ outcome, cause: cause?.code ?? 'none' });
    for (const d of decisions) this.deps.metrics.deliveries.inc({ status: d.status });
    if (recorded.terminal && !this.terminal) {
      // Every delivery of a message is created at its acceptance.
      this.deps.metrics.completionSeconds.observe((endedAt.getTime() - group[0]!.createdAt.getTime()) / 1000);
    }
    this.terminal = recorded.terminal;
    this.log.info('attempt recorded', {
      outcome,
      cause: cause?.code ?? null,
      recipients: group.length,
      tls: facts.tls,
      // A transaction with a BCC recipient would name the BCC domain through its MX host, which TLS errors name too.
      ...(group.some((d) => d.kind === 'bcc') ? {} : { mx_host: facts.mxHost, ...(facts.tlsFailure ? { tls_failure: facts.tlsFailure } : {}) }),
      message_status: recorded.status,
      ...(recorded.applied < group.length ? { lease_lost: group.length - recorded.applied } : {}),
    });
  }
}

function decide(policy: RetryPolicy, delivery: LeasedDelivery, outcome: DeliveryOutcome, now: Date, draw: number): DeliveryDecision {
  if (outcome.outcome !== 'deferred') return { deliveryId: delivery.id, status: outcome.outcome, cause: outcome.cause };
  const retry = decideRetry(policy, { createdAt: delivery.createdAt, attemptCount: delivery.attemptCount + 1 }, now, () => draw);
  if (retry.kind === 'give_up') {
    // The last reply's codes stay, to say what kept failing.
    return { deliveryId: delivery.id, status: 'failed', cause: { ...outcome.cause, code: 'retries_exhausted', permanent: true } };
  }
  return { deliveryId: delivery.id, status: 'deferred', cause: outcome.cause, nextAttemptAt: retry.at };
}
