import {
  deferred,
  deriveMessageStatus,
  envelopeSender,
  failed,
  heldWhilePaused,
  parseSmtpReply,
  transactionFeedback,
  type AttemptTransport,
  type CauseCode,
  type DeliveryOutcome,
  type TransactionFeedback,
} from '@mailer/domain';
import { loadAttachments, nextObligation, type DeliveryContext, type Lease, type LeasedDelivery } from '@mailer/db';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';
import { compositionRequest } from '../delivery/compose-message';
import type { EgressChoice } from '../delivery/egress-pools';
import { deliverToHosts, routeDomain, type TransactionReport } from '../delivery/smtp-transport';
import type { MtaStsPolicy } from '../delivery/mta-sts/mta-sts-policies';
import type { ScheduledGroup, TransactionLimits } from '../scheduling/destination';
import { AttemptRecorder } from './attempt-recorder';
import type { KeptLease } from './lease-keeper';

/** A message taken from a job: its deliveries are held by the scheduler (or recorded already). */
export interface TakenMessage {
  /**
   * Settles once every delivery taken was recorded or released and the next obligation
   * scheduled; rejects when a record failed (the database away).
   */
  done: Promise<void>;
}

/**
 * One `deliver-message` job's message: load → lease → route → hold (docs/api-decisions.md, "Scheduling").
 *
 * BullMQ delivers a job at least once and the reconciler may add another for the same
 * message, so Postgres decides what is owed: the job leases the owed deliveries first and
 * sends only those. Recipients are grouped by domain and routed (routing failures are
 * recorded at once); each domain's group then waits in its destination's queue of the
 * scheduler, which runs one SMTP transaction per group when the destination has room, and
 * each outcome is recorded in its own transaction as it ends. The message's content is read,
 * built and signed at its first transaction, once. The lease is renewed while any group is held (see
 * LeaseKeeper). Once all are done, a job exists for the message's next obligation (a retry,
 * or the expiry of a lease another worker holds).
 */
export async function takeMessage(deps: WorkerDependencies, emailId: string, log: Logger): Promise<TakenMessage> {
  const claim = await deps.claims.submit(emailId);
  if (!claim) {
    log.warn('message not found');
    return { done: Promise.resolve() };
  }
  const { context, lease } = claim;
  if (lease.deliveries.length === 0) return { done: scheduleNextObligation(deps, lease, log) };
  const kept = deps.leases.keep(lease);
  try {
    const message = new HeldMessage(deps, context, lease, kept, log);
    await message.hold();
    return { done: message.done };
  } catch (error) {
    kept.release();
    throw error;
  }
}

/**
 * A message whose deliveries are held: it settles once each of its groups is recorded or
 * released. A daemon holds up to WORKER_ACTIVE_LIMIT deliveries for as long as their
 * destinations make them wait, and the collector copies whatever they own before it is old
 * (docs/api-decisions.md, "Scheduling"), so a held message is this object, its recorder and
 * one object per group, with no listener, timer or closure of its own (its lease's abort
 * signal is made when its transaction starts).
 */
class HeldMessage {
  readonly recorder: AttemptRecorder;
  readonly done: Promise<void>;
  /** When the message was taken: routing decisions are timed from it. */
  readonly startedAt: Date;
  private composed?: Promise<Buffer>;
  private unsettled = 0;
  private failure?: { error: unknown };
  private settle!: { resolve: () => void; reject: (error: unknown) => void };

  constructor(
    readonly deps: WorkerDependencies,
    readonly context: DeliveryContext,
    readonly lease: Lease,
    readonly kept: KeptLease,
    readonly log: Logger,
  ) {
    this.recorder = new AttemptRecorder(deps, lease, log);
    this.startedAt = deps.now();
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  /**
   * Records what needs no transaction and hands each SMTP transaction's group to the
   * scheduler: a recipient domain's deliveries together, or each delivery alone once the
   * domain's return path is verified, since its MAIL FROM then names that one delivery
   * (docs/api-decisions.md, "Return path").
   */
  async hold(): Promise<void> {
    const { deps, context, lease } = this;
    if (!context.sender.active) return this.decideAll(failed('sender_disabled'));
    if (context.email.test) return this.simulate();
    if (context.sendingPaused) return this.holdWhilePaused();
    if (!context.domain.ready) return this.decideAll(deferred('domain_not_ready'));
    const byDomain = new Map<string, LeasedDelivery[]>();
    for (const d of lease.deliveries) {
      const group = byDomain.get(d.recipientDomain);
      if (group) group.push(d);
      else byDomain.set(d.recipientDomain, [d]);
    }
    const transactions = (group: LeasedDelivery[]) => (context.domain.returnPathVerified ? group.map((d) => [d]) : [group]);
    this.unsettled = [...byDomain.values()].reduce((sum, group) => sum + transactions(group).length, 0);
    await Promise.all(
      [...byDomain].map(async ([domain, group]) => {
        // Cut short at shutdown; a lease that lapses meanwhile is seen right after (DNS has its own timeout).
        const route = await routeDomain(deps.transport, domain, deps.shutdown.signal);
        const stopped = this.kept.stopped;
        for (const transaction of transactions(group)) {
          if (stopped) this.track(this.recorder.release(transaction, stopped.message));
          else if (route.kind === 'decided') this.track(this.decide(transaction, route.outcome));
          else deps.scheduler.hold(route.hosts, new HeldGroup(this, domain, transaction, route.hosts, route.mtaSts));
        }
      }),
    );
  }

  /** Read and built at the first transaction and shared by the others; dropped with the message. */
  compose(): Promise<Buffer> {
    return (this.composed ??= (async () => {
      const content = await this.deps.contents.submit(this.lease.emailId);
      if (!content) throw new Error('the message content was already purged');
      const attachments = content.hasAttachments ? await loadAttachments(this.deps.db, this.lease.emailId) : [];
      return this.deps.composer.compose(compositionRequest(this.context, content, attachments));
    })());
  }

  /**
   * Its account's sending is paused (docs/api-decisions.md, "Reputation"): nothing is
   * attempted; a delivery past its maximum age ends `failed` (`retries_exhausted`), the others
   * go back due at their expiry (heldWhilePaused), when a job comes back for them.
   */
  private holdWhilePaused(): void {
    const now = this.deps.now();
    const expired: LeasedDelivery[] = [];
    const held = new Map<number, LeasedDelivery[]>();
    for (const d of this.lease.deliveries) {
      const fate = heldWhilePaused(d, now, this.deps.config.worker.maxDeliveryAgeMs);
      if (fate.kind === 'expire') expired.push(d);
      else held.set(fate.until.getTime(), [...(held.get(fate.until.getTime()) ?? []), d]);
    }
    this.unsettled = held.size + (expired.length > 0 ? 1 : 0);
    if (expired.length > 0) this.track(this.decide(expired, failed('retries_exhausted')));
    for (const [until, group] of held) this.track(this.recorder.release(group, 'account sending paused', new Date(until)));
  }

  /**
   * A test message (docs/api-decisions.md, "Test mode"): nothing is routed, built or sent;
   * each delivery's outcome is simulated and recorded as an attempt would be.
   */
  private simulate(): void {
    this.unsettled = 1;
    this.track(this.recorder.simulate(this.lease.deliveries, this.startedAt));
  }

  /** Every delivery decided without a transaction. */
  private decideAll(outcome: DeliveryOutcome): void {
    this.unsettled = 1;
    this.track(this.decide(this.lease.deliveries, outcome));
  }

  decide(group: LeasedDelivery[], outcome: DeliveryOutcome): Promise<void> {
    return this.recorder.record(group, () => outcome, { startedAt: this.startedAt, transport: null });
  }

  /** Follows one group's record or release; the last one settles the message. */
  track(work: Promise<void>): void {
    work.then(
      () => this.groupSettled(),
      (error: unknown) => {
        this.failure ??= { error };
        this.groupSettled();
      },
    );
  }

  private groupSettled(): void {
    if (--this.unsettled > 0) return;
    this.kept.release();
    if (this.failure) return this.settle.reject(this.failure.error);
    if (this.recorder.terminal) return this.settle.resolve();
    scheduleNextObligation(this.deps, this.lease, this.log).then(this.settle.resolve, this.settle.reject);
  }
}

/** One recipient domain's deliveries of a held message, waiting in its destination's queue. */
class HeldGroup implements ScheduledGroup {
  readonly accountId: string;
  readonly deliveries: number;

  constructor(
    private readonly message: HeldMessage,
    readonly domain: string,
    private readonly group: LeasedDelivery[],
    private readonly hosts: readonly string[],
    private readonly mtaSts: MtaStsPolicy | null,
  ) {
    this.accountId = message.context.email.accountId;
    this.deliveries = group.length;
  }

  release(reason: string): Promise<void> {
    return this.settled(this.message.recorder.release(this.group, reason));
  }

  skip(cause: CauseCode): Promise<void> {
    return this.settled(this.message.decide(this.group, deferred(cause)));
  }

  async run(limits: TransactionLimits): Promise<TransactionFeedback> {
    const { message, group, domain } = this;
    const { deps, context, kept } = message;
    if (kept.stopped) {
      await this.release(kept.stopped.message);
      return 'neutral';
    }
    let egress: EgressChoice;
    try {
      egress = await deps.egress.choose(context.egressPool, limits.provider, group.length, deps.now());
    } catch (error) {
      // The pool could not be read (the database away): given back unattempted, as at a shutdown.
      message.log.error('egress pool not read', { error: (error as Error).message });
      await this.release('egress pool not read');
      return 'neutral';
    }
    if (egress.kind === 'wait') {
      deps.metrics.warmUpPostponed.inc({ pool: egress.pool, provider: limits.provider ?? 'none' }, group.length);
      await this.settled(message.recorder.postpone(group, egress.until));
      return 'neutral';
    }
    let built: Buffer;
    try {
      built = await message.compose();
    } catch (error) {
      message.log.error('message could not be built', { error: (error as Error).message });
      await this.settled(message.decide(group, deferred('internal_error')));
      return 'neutral';
    }
    // PostgreSQL decides what goes out (docs/api-decisions.md, "Delivery"): right before the
    // transaction the lease is checked for this group; a delivery recorded, released or taken
    // over meanwhile (a job replayed, a lease that lapsed) is not sent.
    let held: string[];
    try {
      held = await deps.leaseChecks.submit({ token: message.lease.token, deliveryIds: group.map((d) => d.id) });
    } catch (error) {
      message.log.error('lease not checked', { error: (error as Error).message });
      await this.release('lease not checked');
      return 'neutral';
    }
    const sending = group.filter((d) => held.includes(d.id));
    if (sending.length < group.length) message.log.warn('lease lost before the transaction', { recipients: group.length - sending.length });
    if (sending.length === 0) {
      await this.settled(Promise.resolve());
      return 'neutral';
    }
    const startedAt = deps.now();
    const endTransactionTimer = deps.metrics.transactionSeconds.startTimer();
    const recipients = sending.map((d) => d.recipient);
    // Aborted on shutdown or when the lease lapses; otherwise a transaction is bounded by its
    // own timeouts (DNS, connect, commands, the final dot).
    const signal = kept.signal;
    const report = await deliverToHosts(deps.transport, this.hosts, {
      domain,
      // With a verified return path the group is one delivery, which MAIL FROM names.
      from: envelopeSender({
        senderEmail: context.sender.email,
        domain: context.domain.name,
        returnPathVerified: context.domain.returnPathVerified,
        deliveryId: sending[0]!.id,
        key: deps.returnPathKey,
        label: deps.config.returnPath.label,
      }),
      recipients,
      message: built,
      policy: context.sender.policy,
      mtaSts: this.mtaSts,
      signal,
      ...(limits.messagesPerConnection !== undefined ? { messagesPerConnection: limits.messagesPerConnection } : {}),
      ...(egress.kind === 'source' ? { source: egress.source } : {}),
    });
    endTransactionTimer();
    for (const raw of new Set(report.replies.values())) deps.scheduler.observeReply(this.hosts, parseSmtpReply(raw));
    if (report.tlsPolicy.met !== null) deps.metrics.tlsSessions.inc({ policy: report.tlsPolicy.applied, result: report.tlsPolicy.met ? 'success' : 'failure' });
    // Cut short before the message went out in full: nothing was delivered, so the
    // deliveries go back for the next daemon (after the final dot, the duplicate case:
    // recorded as deferred, if the lease is still ours).
    if (report.aborted && !report.aborted.finalDotSent) {
      await this.release((signal.reason as Error).message);
      return 'neutral';
    }
    const outcomeOf = (d: LeasedDelivery) => report.outcomes.get(d.recipient) ?? deferred('internal_error');
    // Recorded after the destination's slot is given back: the slot bounds transactions
    // to the destination, and a record waits for its batch's round trips to PostgreSQL
    // (docs/api-decisions.md, "Scheduling"). The message's settlement follows the record.
    void this.settled(
      message.recorder.record(sending, outcomeOf, {
        startedAt,
        transport: attemptTransport(report, sending),
        tlsFailure: report.tlsFailure,
        ...(egress.kind === 'source' ? { sourceAddress: egress.source.address } : {}),
      }),
    );
    return transactionFeedback({ connected: report.connected, aborted: report.aborted !== undefined, causes: recipients.map((r) => report.outcomes.get(r)?.cause?.code) });
  }

  /** The group's record or release, followed by its message; never rejects (the message carries the failure). */
  private settled(work: Promise<void>): Promise<void> {
    this.message.track(work);
    return work.catch(() => undefined);
  }
}

/**
 * What the transport saw, for operators: the host and address, the reply that decided the
 * attempt's outcome (the first recipient's whose outcome is the attempt's), its text as
 * parseSmtpReply keeps it (REPLY_TEXT_LIMIT), and the session's TLS under the policy that applied
 * (the sender's, the domain's MTA-STS policy or the stricter of them). None when no host was tried.
 */
function attemptTransport(report: TransactionReport, group: LeasedDelivery[]): AttemptTransport | null {
  if (!report.mxHost) return null;
  const outcomes = group.map((d) => report.outcomes.get(d.recipient)?.outcome ?? 'deferred');
  const outcome = deriveMessageStatus(outcomes);
  const decider = group.find((_, i) => outcomes[i] === outcome);
  const raw = decider && report.replies.get(decider.recipient);
  const reply = raw === undefined ? null : parseSmtpReply(raw);
  return {
    mxHost: report.mxHost,
    mxAddress: report.mxAddress,
    reply: reply && { code: reply.code || null, enhancedStatus: reply.enhancedStatus, text: reply.text },
    tls: report.tls,
    policy: report.tlsPolicy.applied,
    tlsResult: report.tlsPolicy.met === null ? null : (report.tlsPolicy.failure ?? 'success'),
  };
}

async function scheduleNextObligation(deps: WorkerDependencies, { emailId, accountId }: Pick<Lease, 'emailId' | 'accountId'>, log: Logger): Promise<void> {
  const due = await nextObligation(deps.db, emailId);
  if (!due) return;
  try {
    await deps.deliveryQueue.enqueue({ emailId, dueAt: due, accountId }, deps.now());
  } catch (error) {
    // Redis is away: the reconciler enqueues owed deliveries once it is back.
    log.warn('next attempt not enqueued', { error: (error as Error).message, due: due.toISOString() });
  }
}
