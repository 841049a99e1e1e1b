import {
  decideRetry,
  deriveMessageStatus,
  SIMULATED_RETRY_MS,
  simulatedOutcome,
  type AttemptTransport,
  type AttemptOutcome,
  type DeliveryOutcome,
  type RetryPolicy,
  type SimulatedOutcome,
} from '@mailer/domain';
import { isDatabaseUnavailable, releaseLease, type AttemptWrite, type DeliveryDecision, type Lease, type LeasedDelivery, type RecordedAttempt } from '@mailer/operations';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';

export interface AttemptFacts {
  startedAt: Date;
  /** What the transport saw (operator-only); null for a decision made without one. */
  transport: AttemptTransport | null;
  /** Why a TLS negotiation failed during the attempt (see TransactionReport); operator logs only. */
  tlsFailure?: string;
  /** The egress pool's address the attempt left from; absent: the machine's own. */
  sourceAddress?: string;
}

/**
 * Records a job's attempts for one lease, each as soon as it ends (writeAttempts derives the
 * message's status from its deliveries as locked, so records of one message need no order
 * among themselves).
 */
export class AttemptRecorder {
  /** Whether a record left the message terminal. */
  terminal = false;

  constructor(
    private readonly deps: WorkerDependencies,
    private readonly lease: Lease,
    private readonly log: Logger,
  ) {}

  /** Passes deferrals through the retry policy, then writes the attempt (counted in the daemon's record backlog until stored). */
  record(group: LeasedDelivery[], outcomeOf: (delivery: LeasedDelivery) => DeliveryOutcome, facts: AttemptFacts): Promise<void> {
    return this.deps.recordBacklog.track(() => {
      const endedAt = this.deps.now();
      const outcomes = group.map(outcomeOf);
      // One jitter draw per transaction: deliveries deferred together come back together.
      const draw = Math.random();
      const policy = { scheduleMs: this.deps.config.worker.retryScheduleMs, maxDeliveryAgeMs: this.deps.config.worker.maxDeliveryAgeMs };
      const decisions = group.map((delivery, i) => decide(policy, delivery, outcomes[i]!, endedAt, draw));
      return this.write(group, outcomes, decisions, endedAt, facts);
    });
  }

  /**
   * A test message's attempt, decided locally by simulatedOutcome (docs/api-decisions.md,
   * "Test mode"): a deferral is owed again after SIMULATED_RETRY_MS, whatever the retry
   * policy says, and a simulated complaint is recorded with the acceptance it follows. No
   * transaction joins the recipients, so each outcome is an attempt of its own: an attempt's
   * recipients are those whose outcome it shows.
   */
  async simulate(group: LeasedDelivery[], startedAt: Date): Promise<void> {
    const byOutcome = new Map<string, { deliveries: LeasedDelivery[]; simulated: SimulatedOutcome[] }>();
    for (const delivery of group) {
      const simulated = simulatedOutcome(delivery.recipient, delivery.attemptCount);
      const key = `${simulated.outcome.outcome} ${simulated.outcome.cause?.code ?? ''}`;
      const entry = byOutcome.get(key) ?? { deliveries: [], simulated: [] };
      entry.deliveries.push(delivery);
      entry.simulated.push(simulated);
      byOutcome.set(key, entry);
    }
    for (const { deliveries, simulated } of byOutcome.values()) {
      await this.deps.recordBacklog.track(() => {
        const endedAt = this.deps.now();
        const decisions = deliveries.map(
          (d, i): DeliveryDecision => ({
            deliveryId: d.id,
            status: simulated[i]!.outcome.outcome,
            cause: simulated[i]!.outcome.cause,
            ...(simulated[i]!.outcome.outcome === 'deferred' ? { nextAttemptAt: new Date(endedAt.getTime() + SIMULATED_RETRY_MS) } : {}),
            ...(simulated[i]!.complained ? { complained: true } : {}),
          }),
        );
        return this.write(deliveries, simulated.map((s) => s.outcome), decisions, endedAt, { startedAt, transport: null });
      });
    }
  }

  /** Gives deliveries back unattempted (shutdown, a lease not renewed in time, the account paused), due at `dueAt` (now unless given). */
  async release(group: LeasedDelivery[], reason: string, dueAt?: Date): Promise<void> {
    const now = this.deps.now();
    await releaseLease(this.deps.db, this.lease, group.map((d) => d.id), now, { reason: 'released', dueAt: dueAt ?? now });
    this.log.info('lease released', { recipients: group.length, reason, ...recipientDomainOf(group) });
  }

  /**
   * Gives deliveries back unattempted, owed again at `until`: their pool had no warm-up
   * allowance left today (no attempt, no event; docs/api-decisions.md, "Providers and egress pools").
   */
  async postpone(group: LeasedDelivery[], until: Date): Promise<void> {
    await releaseLease(this.deps.db, this.lease, group.map((d) => d.id), this.deps.now(), { reason: 'postponed', dueAt: until });
    this.log.info('postponed for warm-up', { recipients: group.length, until: until.toISOString(), ...recipientDomainOf(group) });
  }

  /**
   * Writes a record; one the database does not take (away, or a round trip unanswered) goes to
   * the journal, on disk before anything else, and is written from there once the database
   * answers (docs/api-decisions.md, "Delivery"): the message went out, and a record lost would
   * have it sent again once its lease ran out.
   */
  private async store(write: AttemptWrite): Promise<RecordedAttempt> {
    try {
      return await this.deps.attempts.submit(write);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.log.warn('attempt not recorded, database unavailable; kept in the journal', { error: (error as Error).message });
      return this.deps.journal.keep(write);
    }
  }

  private async write(group: LeasedDelivery[], outcomes: DeliveryOutcome[], decisions: DeliveryDecision[], endedAt: Date, facts: AttemptFacts): Promise<void> {
    const outcome = deriveMessageStatus(outcomes.map((o) => o.outcome)) as AttemptOutcome;
    const cause = outcomes.find((o) => o.outcome === outcome)?.cause ?? null;
    const recorded = await this.store({
      lease: this.lease,
      attempt: { startedAt: facts.startedAt, endedAt, outcome, cause, transport: facts.transport },
      decisions,
    });
    this.deps.metrics.attempts.inc({ outcome, cause: cause?.code ?? 'none' });
    for (const d of decisions) this.deps.metrics.deliveries.inc({ status: d.status });
    if (recorded.message.terminal && !this.terminal) {
      this.terminal = true;
      // Every delivery of a message is created at its acceptance.
      this.deps.metrics.completionSeconds.observe((endedAt.getTime() - group[0]!.createdAt.getTime()) / 1000);
    }
    const { transport } = facts;
    this.log.info('attempt recorded', {
      ...recipientDomainOf(group),
      outcome,
      cause: cause?.code ?? null,
      recipients: group.length,
      tls: transport?.tls != null,
      ...(facts.sourceAddress ? { source_address: facts.sourceAddress } : {}),
      ...(transport?.tls ? { tls_version: transport.tls.version } : {}),
      // A transaction with a BCC recipient would name the BCC domain through its MX host, which TLS errors name too.
      ...(group.some((d) => d.kind === 'bcc') || !transport ? {} : { mx_host: transport.mxHost, ...(facts.tlsFailure ? { tls_failure: facts.tlsFailure } : {}) }),
      message_status: recorded.message.status,
      ...(recorded.applied < group.length ? { lease_lost: group.length - recorded.applied } : {}),
    });
  }
}

/**
 * The `recipient_domain` field of a group's lines (docs/guide.md, "Logs (operators)"): its one recipient
 * domain, unless a BCC recipient is among them (nothing derived from a BCC address is logged).
 */
function recipientDomainOf(group: readonly LeasedDelivery[]): { recipient_domain?: string } {
  const domains = new Set(group.map((d) => d.recipientDomain));
  if (domains.size !== 1 || group.some((d) => d.kind === 'bcc')) return {};
  return { recipient_domain: group[0]!.recipientDomain };
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
