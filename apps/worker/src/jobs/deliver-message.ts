import { deferred, failed, heldWhilePaused, type DeliveryOutcome } from '@mailer/domain';
import { loadAttachments, nextObligation, type DeliveryContext, type Lease, type LeasedDelivery } from '@mailer/operations';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';
import { compositionRequest } from '../delivery/compose-message';
import { perDeliveryHeaders, perDeliveryHtml } from '../delivery/per-delivery-content';
import type { HeldMessage as TargetMessage } from '../targets/delivery-target';
import { smtpTarget } from '../targets/smtp-target';
import { testModeTarget } from '../targets/test-mode-target';
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
 * One `deliver-message` job's message: load → lease → decide or hand to its target
 * (docs/api-decisions.md, "Delivery" and "Scheduling").
 *
 * BullMQ delivers a job at least once and the reconciler may add another for the same
 * message, so Postgres decides what is owed: the job leases the owed deliveries first and
 * sends only those. What needs no transport is recorded at once (a disabled sender, a paused
 * account, a domain not ready); otherwise the message goes to its DeliveryTarget, test mode's
 * for a test message, else SMTP's, which routes the recipients per domain and holds each
 * transaction's group in the scheduler; leaseGate checks the lease right before each
 * transaction, and each outcome is recorded in its own transaction as it ends. The message's
 * content is read, built and signed at its first transaction, once (signed once per delivery
 * when each gets header fields of its own: perDeliveryHeaders). The lease is renewed while
 * any delivery is held (see LeaseKeeper). Once all are settled, a job exists for the message's
 * next obligation (a retry, or the expiry of a lease another worker holds).
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
class HeldMessage implements TargetMessage {
  readonly recorder: AttemptRecorder;
  readonly done: Promise<void>;
  /** When the message was taken: routing decisions are timed from it. */
  readonly startedAt: Date;
  /** The message as each delivery of the lease receives it. */
  private composed?: Promise<(deliveryId: string) => Buffer>;
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
   * Records what needs no transport, or hands the message to its target: test mode's for a
   * test message, else SMTP's (see DeliveryTarget).
   */
  async hold(): Promise<void> {
    const { context } = this;
    if (!context.sender.active) return this.decideAll(failed('sender_disabled'));
    if (context.email.test) return testModeTarget.deliver(this);
    if (context.sendingPaused) return this.holdWhilePaused();
    if (!context.domain.ready) return this.decideAll(deferred('domain_not_ready'));
    return smtpTarget.deliver(this);
  }

  /**
   * Read and built at the first transaction and shared by the others; signed once, or once
   * per leased delivery with its own header fields (perDeliveryHeaders) or tracked HTML part
   * (perDeliveryHtml); dropped with the message.
   */
  async compose(group: readonly LeasedDelivery[]): Promise<Buffer> {
    const copyOf = await (this.composed ??= (async () => {
      const { deps, context, lease } = this;
      const content = await deps.contents.submit(lease.emailId);
      if (!content) throw new Error('the message content was already purged');
      const attachments = content.hasAttachments ? await loadAttachments(deps.db, lease.emailId) : [];
      const request = compositionRequest(context, content, attachments);
      const ids = lease.deliveries.map((d) => d.id);
      const links = { publicUrl: deps.config.publicUrl, returnPathLabel: deps.config.returnPath.label, encryptionKey: deps.config.encryptionKey, now: deps.now() };
      const fields = perDeliveryHeaders(context.email, content.headers, context.domain.name, ids, links);
      const html = perDeliveryHtml(context.email, content.html, context.domain.trackingHost, lease.deliveries, links);
      if (!fields && !html) {
        const signed = await deps.composer.compose(request);
        return () => signed;
      }
      const copies = await deps.composer.composeCopies(
        request,
        ids.map((id) => {
          const own = html?.get(id);
          return { fields: fields?.get(id) ?? [], ...(own === undefined ? {} : { html: own }) };
        }),
      );
      const byId = new Map(ids.map((id, i) => [id, copies[i]!]));
      return (deliveryId: string) => byId.get(deliveryId)!;
    })());
    return copyOf(group[0]!.id);
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
    this.expect(held.size + (expired.length > 0 ? 1 : 0));
    if (expired.length > 0) void this.track(this.decide(expired, failed('retries_exhausted')));
    for (const [until, group] of held) void this.track(this.recorder.release(group, 'account sending paused', new Date(until)));
  }

  /** Every delivery decided without a transaction. */
  private decideAll(outcome: DeliveryOutcome): void {
    this.expect(1);
    void this.track(this.decide(this.lease.deliveries, outcome));
  }

  decide(group: LeasedDelivery[], outcome: DeliveryOutcome): Promise<void> {
    return this.recorder.record(group, () => outcome, { startedAt: this.startedAt, transport: null });
  }

  expect(settlements: number): void {
    this.unsettled = settlements;
  }

  /** Follows one group's record or release; the last one settles the message. */
  track(work: Promise<void>): Promise<void> {
    work.then(
      () => this.groupSettled(),
      (error: unknown) => {
        this.failure ??= { error };
        this.groupSettled();
      },
    );
    return work.catch(() => undefined);
  }

  private groupSettled(): void {
    if (--this.unsettled > 0) return;
    this.kept.release();
    if (this.failure) return this.settle.reject(this.failure.error);
    if (this.recorder.terminal) return this.settle.resolve();
    scheduleNextObligation(this.deps, this.lease, this.log).then(this.settle.resolve, this.settle.reject);
  }
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
