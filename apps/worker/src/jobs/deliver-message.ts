import { setMaxListeners } from 'node:events';
import { deferred, failed, type DeliveryOutcome } from '@mailer/domain';
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
 * Afterwards the job makes sure a job exists for the message's next obligation (a
 * retry, or the expiry of a lease another worker holds).
 */
export async function deliverMessage(deps: WorkerDependencies, emailId: string, log: Logger): Promise<void> {
  const claim = await deps.claims.submit(emailId);
  if (!claim) {
    log.warn('message not found');
    return;
  }
  const { context, lease } = claim;
  const terminal = lease.deliveries.length > 0 && (await attemptLeased(deps, context, lease, log));
  if (!terminal) await scheduleNextObligation(deps, emailId, log);
}

/** Resolves with whether the message ended up terminal. */
async function attemptLeased(deps: WorkerDependencies, context: DeliveryContext, lease: Lease, log: Logger): Promise<boolean> {
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
  // Aborted at the end of the attempt budget or on shutdown. Built by hand and torn down at
  // the end: AbortSignal.timeout would keep a timer (and the signal) alive for the whole
  // lease, and AbortSignal.any ties each job's signal to the long-lived shutdown signal.
  const cutoff = new AbortController();
  const signal = cutoff.signal;
  // Each domain's transaction listens to it (up to 50 recipient domains).
  setMaxListeners(0, signal);
  const onShutdown = () => cutoff.abort(deps.shutdown.signal.reason);
  if (deps.shutdown.signal.aborted) onShutdown();
  deps.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
  const budget = setTimeout(() => cutoff.abort(new Error('attempt budget exceeded')), attemptBudgetMs(deps, lease));
  const results = await Promise.allSettled(
    [...groups].map(async ([domain, group]) => {
      const groupStartedAt = deps.now();
      const endTransactionTimer = deps.metrics.transactionSeconds.startTimer();
      const report = await deliverToDomain(deps.transport, {
        domain,
        from: context.sender.email,
        recipients: group.map((d) => d.recipient),
        message,
        policy: context.sender.policy,
        signal,
      });
      endTransactionTimer();
      if (report.aborted && deps.shutdown.signal.aborted && !report.aborted.finalDotSent) {
        return recorder.release(group);
      }
      const outcomeOf = (d: LeasedDelivery) => report.outcomes.get(d.recipient) ?? deferred('internal_error');
      await recorder.record(group, outcomeOf, { startedAt: groupStartedAt, tls: report.tls, mxHost: report.mxHost, tlsFailure: report.tlsFailure });
    }),
  );
  clearTimeout(budget);
  deps.shutdown.signal.removeEventListener('abort', onShutdown);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return recorder.terminal;
}

/**
 * An attempt must end before its lease does, or another worker could take the deliveries
 * over while this one still talks to the MX. It is cut off a margin before the expiry.
 */
function attemptBudgetMs(deps: WorkerDependencies, lease: Lease): number {
  const margin = Math.min(60_000, deps.config.worker.leaseMs / 10);
  return Math.max(1, lease.expiresAt.getTime() - deps.now().getTime() - margin);
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
