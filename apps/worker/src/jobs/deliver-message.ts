import { setMaxListeners } from 'node:events';
import { deferred, envelopeSender, failed, type DeliveryOutcome } from '@mailer/domain';
import {
  loadAttachments,
  nextObligation,
  type DeliveryContext,
  type Lease,
  type LeasedDelivery,
} from '@mailer/db';
import type { Logger } from '@mailer/logger';
import type { WorkerDependencies } from '../container';
import { compositionRequest } from '../delivery/compose-message';
import { deliverToDomain } from '../delivery/smtp-transport';
import { AttemptRecorder } from './attempt-recorder';

/**
 * One `deliver-message` job: load → lease → build → sign → send → record.
 *
 * BullMQ delivers a job at least once and the reconciler may add another for the same
 * message, so Postgres decides what is owed: the job leases the owed deliveries first and
 * sends only those. Recipients are grouped by domain, one SMTP transaction per group, all
 * groups at once; each group's outcome is recorded in its own transaction as it ends.
 * The lease is renewed while the job works on it (see LeaseKeeper). Afterwards the job
 * makes sure a job exists for the message's next obligation (a retry, or the expiry of a
 * lease another worker holds).
 */
export async function deliverMessage(deps: WorkerDependencies, emailId: string, log: Logger): Promise<void> {
  const claim = await deps.claims.submit(emailId);
  if (!claim) {
    log.warn('message not found');
    return;
  }
  const { context, lease } = claim;
  let terminal = false;
  if (lease.deliveries.length > 0) {
    const kept = deps.leases.keep(lease);
    try {
      terminal = await attemptLeased(deps, context, lease, kept.signal, log);
    } finally {
      kept.release();
    }
  }
  if (!terminal) await scheduleNextObligation(deps, emailId, log);
}

/**
 * Resolves with whether the message ended up terminal. `leaseLapse` aborts when the lease
 * could not be renewed in time.
 */
async function attemptLeased(deps: WorkerDependencies, context: DeliveryContext, lease: Lease, leaseLapse: AbortSignal, log: Logger): Promise<boolean> {
  const startedAt = deps.now();
  const recorder = new AttemptRecorder(deps, lease, log);
  const decideAll = async (outcome: DeliveryOutcome) => {
    await recorder.record(lease.deliveries, () => outcome, { startedAt, tls: false, mxHost: null });
    return recorder.terminal;
  };
  if (!context.sender.active) return decideAll(failed('sender_disabled'));
  if (!context.domain.ready) return decideAll(deferred('domain_not_ready'));

  let message: Buffer;
  try {
    const { content } = context;
    if (!content) throw new Error('the message content was already purged');
    const attachments = content.hasAttachments ? await loadAttachments(deps.db, lease.emailId) : [];
    message = await deps.composer.compose(compositionRequest(context, content, attachments));
  } catch (error) {
    log.error('message could not be built', { error: (error as Error).message });
    return decideAll(deferred('internal_error'));
  }

  const groups = new Map<string, LeasedDelivery[]>();
  for (const d of lease.deliveries) groups.set(d.recipientDomain, [...(groups.get(d.recipientDomain) ?? []), d]);
  // Aborted on shutdown or when the lease lapses; otherwise an attempt is bounded by its own
  // timeouts (DNS, connect, commands, the final dot). Built by hand and torn down at the
  // end: AbortSignal.any ties each job's signal to the long-lived shutdown signal.
  const cutoff = new AbortController();
  const signal = cutoff.signal;
  // Each domain's transaction listens to it (up to 50 recipient domains).
  setMaxListeners(0, signal);
  const onShutdown = () => cutoff.abort(deps.shutdown.signal.reason);
  const onLapse = () => cutoff.abort(leaseLapse.reason);
  for (const [source, listener] of [[deps.shutdown.signal, onShutdown], [leaseLapse, onLapse]] as const) {
    if (source.aborted) listener();
    source.addEventListener('abort', listener, { once: true });
  }
  const results = await Promise.allSettled(
    [...groups].map(async ([domain, group]) => {
      const groupStartedAt = deps.now();
      const endTransactionTimer = deps.metrics.transactionSeconds.startTimer();
      const report = await deliverToDomain(deps.transport, {
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
        recipients: group.map((d) => d.recipient),
        message,
        policy: context.sender.policy,
        signal,
      });
      endTransactionTimer();
      // Cut short before the message went out in full: nothing was delivered, so the
      // deliveries go back for the next daemon (after the final dot, the duplicate case:
      // recorded as deferred, if the lease is still ours).
      if (report.aborted && !report.aborted.finalDotSent) {
        return recorder.release(group, (signal.reason as Error).message);
      }
      const outcomeOf = (d: LeasedDelivery) => report.outcomes.get(d.recipient) ?? deferred('internal_error');
      await recorder.record(group, outcomeOf, { startedAt: groupStartedAt, tls: report.tls, mxHost: report.mxHost, tlsFailure: report.tlsFailure });
    }),
  );
  deps.shutdown.signal.removeEventListener('abort', onShutdown);
  leaseLapse.removeEventListener('abort', onLapse);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return recorder.terminal;
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
