import { setMaxListeners } from 'node:events';
import { deferred, envelopeSender, failed, transactionFeedback, type DeliveryOutcome, type TransactionFeedback } from '@mailer/domain';
import { loadAttachments, nextObligation, type DeliveryContext, type Lease, type LeasedDelivery } from '@mailer/db';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';
import { compositionRequest } from '../delivery/compose-message';
import { deliverToHosts, routeDomain } from '../delivery/smtp-transport';
import type { ScheduledGroup } from '../scheduling/destination';
import { onAbort } from './abort-listeners';
import { AttemptRecorder } from './attempt-recorder';

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
  if (lease.deliveries.length === 0) return { done: scheduleNextObligation(deps, emailId, log) };
  const kept = deps.leases.keep(lease);
  let groups: Promise<void>[];
  let recorder: AttemptRecorder;
  let detach = () => undefined as void;
  try {
    recorder = new AttemptRecorder(deps, lease, log);
    ({ groups, detach } = await holdGroups(deps, context, lease, recorder, kept.signal, log));
  } catch (error) {
    kept.release();
    throw error;
  }
  const done = (async () => {
    const results = await Promise.allSettled(groups);
    detach();
    kept.release();
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    if (!recorder.terminal) await scheduleNextObligation(deps, emailId, log);
  })();
  return { done };
}

/** A job's message from claim to its last record, in this process (the tests' and tools' way of running one). */
export async function deliverMessage(deps: WorkerDependencies, emailId: string, log: Logger): Promise<void> {
  await (await takeMessage(deps, emailId, log)).done;
}

/**
 * Records what needs no transaction and hands each routed domain's group to the scheduler.
 * Resolves with one promise per group (settled once it is recorded or released) and the
 * teardown of the message's cut-off signal. `leaseLapse` aborts when the lease could not
 * be renewed in time.
 */
async function holdGroups(
  deps: WorkerDependencies,
  context: DeliveryContext,
  lease: Lease,
  recorder: AttemptRecorder,
  leaseLapse: AbortSignal,
  log: Logger,
): Promise<{ groups: Promise<void>[]; detach: () => void }> {
  const startedAt = deps.now();
  const decide = (group: LeasedDelivery[], outcome: DeliveryOutcome) => recorder.record(group, () => outcome, { startedAt: deps.now(), tls: false, mxHost: null });
  if (!context.sender.active) return { groups: [decide(lease.deliveries, failed('sender_disabled'))], detach: () => undefined };
  if (!context.domain.ready) return { groups: [decide(lease.deliveries, deferred('domain_not_ready'))], detach: () => undefined };

  // Aborted on shutdown or when the lease lapses; otherwise a transaction is bounded by its
  // own timeouts (DNS, connect, commands, the final dot). Built by hand and torn down at the
  // end: AbortSignal.any ties each message's signal to the long-lived shutdown signal.
  const cutoff = new AbortController();
  const signal = cutoff.signal;
  // Each domain's transaction listens to it (up to 50 recipient domains).
  setMaxListeners(0, signal);
  const removals = [
    onAbort(deps.shutdown.signal, () => cutoff.abort(deps.shutdown.signal.reason)),
    onAbort(leaseLapse, () => cutoff.abort(leaseLapse.reason)),
  ];
  const detach = () => removals.forEach((remove) => remove());

  // Read and built at the first transaction and shared by the others; dropped with the message.
  let composed: Promise<Buffer> | undefined;
  const compose = () =>
    (composed ??= (async () => {
      const content = await deps.contents.submit(lease.emailId);
      if (!content) throw new Error('the message content was already purged');
      const attachments = content.hasAttachments ? await loadAttachments(deps.db, lease.emailId) : [];
      return deps.composer.compose(compositionRequest(context, content, attachments));
    })());

  const byDomain = new Map<string, LeasedDelivery[]>();
  for (const d of lease.deliveries) byDomain.set(d.recipientDomain, [...(byDomain.get(d.recipientDomain) ?? []), d]);
  // Each wrapped in an object: a promise resolving to a promise would wait for the transaction.
  const held = await Promise.all(
    [...byDomain].map(async ([domain, group]): Promise<{ settled: Promise<void> }> => {
      const route = await routeDomain(deps.transport, domain, signal);
      if (signal.aborted) return { settled: recorder.release(group, (signal.reason as Error).message) };
      if (route.kind === 'decided') return { settled: recorder.record(group, () => route.outcome, { startedAt, tls: false, mxHost: null }) };
      const settled = new Promise<void>((resolve, reject) => {
        const settle = (work: Promise<void>) => work.then(resolve, reject);
        const release = (reason: string) => settle(recorder.release(group, reason)).then(() => undefined);
        const scheduled: ScheduledGroup = {
          accountId: context.email.accountId,
          domain,
          deliveries: group.length,
          release,
          skip: () => settle(decide(group, deferred('connection_failed'))).then(() => undefined),
          async run(limits): Promise<TransactionFeedback> {
            if (signal.aborted) {
              await release((signal.reason as Error).message);
              return 'neutral';
            }
            let message: Buffer;
            try {
              message = await compose();
            } catch (error) {
              log.error('message could not be built', { error: (error as Error).message });
              await settle(decide(group, deferred('internal_error')));
              return 'neutral';
            }
            const groupStartedAt = deps.now();
            const endTransactionTimer = deps.metrics.transactionSeconds.startTimer();
            const recipients = group.map((d) => d.recipient);
            const report = await deliverToHosts(deps.transport, route.hosts, {
              domain,
              // The group's first delivery names the transaction in MAIL FROM; a DSN names its recipient.
              from: envelopeSender({
                senderEmail: context.sender.email,
                domain: context.domain.name,
                returnPathVerified: context.domain.returnPathVerified,
                deliveryId: group[0]!.id,
                key: deps.returnPathKey,
                label: deps.config.returnPath.label,
              }),
              recipients,
              message,
              policy: context.sender.policy,
              signal,
              ...limits,
            });
            endTransactionTimer();
            // Cut short before the message went out in full: nothing was delivered, so the
            // deliveries go back for the next daemon (after the final dot, the duplicate case:
            // recorded as deferred, if the lease is still ours).
            if (report.aborted && !report.aborted.finalDotSent) {
              await release((signal.reason as Error).message);
              return 'neutral';
            }
            const outcomeOf = (d: LeasedDelivery) => report.outcomes.get(d.recipient) ?? deferred('internal_error');
            // Recorded after the destination's slot is given back: the slot bounds transactions
            // to the destination, and a record waits for its batch's round trips to PostgreSQL
            // (docs/api-decisions.md, "Scheduling"). The message's settlement follows the record.
            void settle(recorder.record(group, outcomeOf, { startedAt: groupStartedAt, tls: report.tls, mxHost: report.mxHost, tlsFailure: report.tlsFailure }));
            return transactionFeedback({ connected: report.connected, aborted: report.aborted !== undefined, causes: recipients.map((r) => report.outcomes.get(r)?.cause?.code) });
          },
        };
        deps.scheduler.hold(route.hosts, scheduled);
      });
      return { settled };
    }),
  );
  return { groups: held.map((h) => h.settled), detach };
}

async function scheduleNextObligation(deps: WorkerDependencies, emailId: string, log: Logger): Promise<void> {
  const due = await nextObligation(deps.db, emailId);
  if (!due) return;
  try {
    await deps.deliveryQueue.enqueue(emailId, due, deps.now());
  } catch (error) {
    // Redis is away: the reconciler enqueues owed deliveries once it is back.
    log.warn('next attempt not enqueued', { error: (error as Error).message, due: due.toISOString() });
  }
}
