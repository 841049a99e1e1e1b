import { Worker, type Job } from 'bullmq';
import { leaseTiming } from '@mailer/domain';
import { evaluateReputation, expireHeldDeliveries, owedDeliveryJobs } from '@mailer/operations';
import { DELIVERY_QUEUE, RECONCILE_GRACE_MS, reconcileOwedDeliveries, type DeliverMessagePayload } from '@mailer/queue';
import type { WorkerDependencies } from './container';
import { takeMessage } from './jobs/deliver-message';
import { ClaimQueue, type QueuedMessage } from './scheduling/claim-queue';
import type { ClaimRoom } from './scheduling/destination-scheduler';
import { publishDestinations } from './scheduling/destination-snapshots';
import { purgeExpiredData } from './jobs/purge-expired-data';
import { startWebhookSender } from './webhooks/webhook-sender';
import { recheckDomains } from './jobs/recheck-domains';
import { rotateDueDkimKeys } from './jobs/rotate-dkim-keys';
import { sendTlsReports, TLS_REPORT_PASS_MS } from './tls-reports/send-tls-reports';

/** After a job failed (the database was away, say), the message gets another job this much later. */
const FAILED_JOB_RETRY_MS = 30_000;
const RECONCILE_PAGE_SIZE = 1_000;
const RETENTION_INTERVAL_MS = 3_600_000;
/** How often a daemon looks for domains due for a re-check (at most DOMAIN_RECHECK_INTERVAL). */
const RECHECK_PASS_MS = 60_000;
/**
 * Claims under way at once: enough for a claim batch in flight and the next one gathering, so
 * that claiming never idles; the other messages wait in the claim queue, where accounts take turns.
 */
const CLAIMS_IN_FLIGHT = 200;
/**
 * Messages a daemon reads ahead of its claims: past another account's backlog of that size,
 * a message is claimed at the next turn. They are the daemon's alone only in memory (their
 * jobs are done), so a daemon that dies leaves them to the reconciler, and a long wait here
 * lets the reconciler hand them to other daemons as well (a claim finds them leased).
 */
const CLAIM_LOOKAHEAD = 10_000;

export interface Daemon {
  worker: Worker<DeliverMessagePayload>;
  /** One reconciler pass; resolves with how many jobs it added. */
  reconcile(): Promise<number>;

  /**
   * Stops taking jobs and the reconciler, and waits for the in-flight jobs. After the
   * shutdown grace period the rest are aborted: deliveries whose message had not gone out
   * are released for another worker, the others recorded.
   */
  stop(): Promise<void>;
}

/**
 * The BullMQ consumer of the delivery queue, `WORKER_CONCURRENCY` jobs at a time, handing
 * each job's messages to the claim queue (a job ends once its messages are queued; accounts
 * take turns there), whose claims hand deliveries to the destination scheduler
 * (docs/api-decisions.md, "Scheduling"); the
 * reconciler: every `RECONCILE_INTERVAL` it enqueues the jobs of owed deliveries that
 * Redis lost (FLUSHALL, Redis down at acceptance, a dead worker's lease), and every third
 * of `DELIVERY_LEASE` those of expired leases alone, so that a dead daemon's deliveries are
 * taken over soon after its leases run out (docs/api-decisions.md, "Delivery"), and with each
 * full pass the expiry of held deliveries past their maximum age (docs/api-decisions.md, "Queue
 * operations"); the webhook sender; at start and then periodically, retention passes and domain
 * re-check passes; and every `REPUTATION_CHECK_INTERVAL` a reputation evaluation
 * (docs/api-decisions.md, "Reputation").
 */
export function startDaemon(deps: WorkerDependencies): Daemon {
  // What an earlier run of this daemon could not record is written first (docs/api-decisions.md, "Delivery").
  deps.journal.load();
  deps.scheduler.start();
  // Messages taken and not yet done: stopping waits for their last records and next jobs.
  const taken = new Set<Promise<void>>();
  const claims = new ClaimQueue({
    capacity: CLAIM_LOOKAHEAD,
    inFlight: CLAIMS_IN_FLIGHT,
    room: () => deps.scheduler.room(deps.shutdown.signal),
    claim: (message, room) => runMessage(deps, message, room, taken),
  });
  const worker = new Worker<DeliverMessagePayload>(DELIVERY_QUEUE, (job) => takeJob(deps, job, claims), {
    connection: deps.workerRedis,
    prefix: deps.config.redisPrefix,
    concurrency: deps.config.worker.concurrency,
  });
  worker.on('error', (error) => deps.logger.error('queue error', { error: error.message }));

  const reconcile = async (expiredLeasesOnly = false) => {
    const now = deps.now();
    if (!expiredLeasesOnly) await expireHolds(now);
    const owed = owedDeliveryJobs(deps.db, { now, graceMs: RECONCILE_GRACE_MS, pageSize: RECONCILE_PAGE_SIZE, expiredLeasesOnly });
    const added = await reconcileOwedDeliveries(deps.deliveryQueue, owed, now);
    if (added > 0) deps.logger.info('reconciler enqueued owed deliveries', { added, expired_leases_only: expiredLeasesOnly });
    deps.metrics.reconcilerEnqueued.inc(added);
    return added;
  };
  // Held deliveries are never claimed, so their expiry is run here (docs/api-decisions.md, "Queue operations").
  const expireHolds = async (now: Date) => {
    const expired = await expireHeldDeliveries(deps.db, now, deps.config.worker.maxDeliveryAgeMs);
    if (expired > 0) deps.logger.info('held deliveries expired', { expired });
  };
  // One pass of each kind at a time; a long full pass does not hold the expired-lease look back.
  const pass = (expiredLeasesOnly: boolean) => oneAtATime(deps, () => reconcile(expiredLeasesOnly), 'reconciliation failed');
  const reconcileTimer = setInterval(pass(false), deps.config.worker.reconcileIntervalMs);
  const expiredLeaseTimer = setInterval(pass(true), leaseTiming(deps.config.worker.leaseMs).renewEveryMs);
  const purge = () => void purgeExpiredData(deps).catch((error: Error) => deps.logger.warn('retention pass failed', { error: error.message }));
  const retentionTimer = setInterval(purge, RETENTION_INTERVAL_MS);
  retentionTimer.unref();
  setImmediate(purge);
  // Scheduled DKIM rotations ride on the re-check's passes: both are daily-scale work on domains.
  const recheck = oneAtATime(
    deps,
    () =>
      recheckDomains(deps)
        .catch((error: Error) => deps.logger.warn('domain re-check pass failed', { error: error.message }))
        .then(() => rotateDueDkimKeys(deps)),
    'DKIM rotation pass failed',
  );
  const recheckTimer = setInterval(recheck, Math.min(RECHECK_PASS_MS, deps.config.worker.domainRecheckIntervalMs));
  recheckTimer.unref();
  setImmediate(recheck);
  const evaluate = oneAtATime(deps, () => evaluateReputation(deps.db, deps.now(), deps.logger), 'reputation evaluation failed');
  const reputationTimer = setInterval(evaluate, deps.config.worker.reputationCheckIntervalMs);
  reputationTimer.unref();
  const report = oneAtATime(deps, () => sendTlsReports(deps), 'TLS report pass failed');
  const reportTimer = setInterval(report, TLS_REPORT_PASS_MS);
  reportTimer.unref();
  setImmediate(report);
  const webhooks = startWebhookSender(deps);
  const destinations = publishDestinations(deps);

  return {
    worker,
    reconcile: () => reconcile(),
    async stop() {
      clearInterval(reconcileTimer);
      clearInterval(expiredLeaseTimer);
      clearInterval(retentionTimer);
      clearInterval(recheckTimer);
      clearInterval(reputationTimer);
      clearInterval(reportTimer);
      const grace = setTimeout(() => deps.shutdown.abort(new Error('shutdown')), deps.config.worker.shutdownGraceMs);
      try {
        // Messages not claimed yet get jobs of their own, due at once, for the next daemon.
        await giveBack(deps, claims.stop());
        // The scheduler stops next: held deliveries go back at once, and claims waiting for room give their messages back.
        await Promise.all([deps.scheduler.stop(), worker.close(), webhooks.stop()]);
        // Claims under way end held (then released) or given back.
        await claims.settled();
        // Messages a job was still claiming when the scheduler stopped were released since.
        await deps.scheduler.stop();
        // A record still in the journal (the database away) is written at the next start.
        deps.journal.stop();
        await Promise.all([...taken]);
        await destinations.stop();
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

/** Runs `work` when called, unless its previous run is still going; a failure is logged as `failure`. */
function oneAtATime(deps: WorkerDependencies, work: () => Promise<unknown>, failure: string): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    work()
      .catch((error: Error) => deps.logger.warn(failure, { error: error.message }))
      .finally(() => (running = false));
  };
}

/**
 * A job carries one message, or several accepted together: it hands them to the claim queue
 * and ends (docs/api-decisions.md, "Scheduling"). A job whose messages cannot be queued (the
 * daemon is stopping) gives them jobs of their own.
 */
async function takeJob(deps: WorkerDependencies, job: Job<DeliverMessagePayload>, claims: ClaimQueue): Promise<void> {
  const messages = job.data.emailIds.map((emailId) => ({ emailId, accountId: job.data.accountId ?? '', jobId: job.id }));
  await claims.add(messages).catch(() => giveBack(deps, messages));
}

/** Jobs due now for messages this daemon took and will not claim. */
async function giveBack(deps: WorkerDependencies, messages: readonly QueuedMessage[]): Promise<void> {
  const now = deps.now();
  await deps.deliveryQueue
    .enqueueMany(messages.map((m) => ({ emailId: m.emailId, dueAt: now, accountId: m.accountId || undefined })), now)
    .catch(() => undefined);
}

/** Claims one message in its room and holds its deliveries; never rejects (a failure gives the message a later job). */
async function runMessage(deps: WorkerDependencies, message: QueuedMessage, room: ClaimRoom, taken: Set<Promise<void>>): Promise<void> {
  const { emailId, jobId } = message;
  const log = deps.logger.child({ email_id: emailId, job_id: jobId });
  const failed = async (error: Error) => {
    deps.metrics.messages.inc({ result: 'failed' });
    log.error('delivery job failed', { error: error.message });
    // Job ids are per due time, so this one is new; leases taken before the failure expire on their own.
    const later = new Date(deps.now().getTime() + FAILED_JOB_RETRY_MS);
    await deps.deliveryQueue.enqueue({ emailId, dueAt: later, accountId: message.accountId || undefined }, deps.now()).catch(() => undefined);
  };
  let taking;
  try {
    taking = await takeMessage(deps, emailId, log).finally(() => room.release());
  } catch (error) {
    await failed(error as Error);
    return;
  }
  const done = taking.done.then(
    () => void deps.metrics.messages.inc({ result: 'completed' }),
    (error: Error) => failed(error),
  );
  taken.add(done);
  void done.finally(() => taken.delete(done));
}
