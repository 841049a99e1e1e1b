import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Config } from '@mailer/config';
import { openDatabase, withinStall, writeAttempts, type Database, type DatabaseHandle } from '@mailer/db';
import { createAuthenticatedLookups, createDnsResolver, createRecordLookup, type DnsResolver, type RecordLookup } from '@mailer/dns';
import { mergeProviders, returnPathKey } from '@mailer/domain';
import { createLogger, type Logger } from '@mailer/logger';
import { createDeliveryQueue, openRedis, SharedDestinationLimits, WarmUpCounters, type DeliveryQueue, type Redis } from '@mailer/queue';
import { SmtpConnectionPool } from './delivery/connection-pool';
import { EgressPools } from './delivery/egress-pools';
import { createMessageComposer, type MessageComposer } from './delivery/message-composer';
import { reportSigningKey, type ReportSigningKey } from './tls-reports/deliver-report';
import { MtaStsPolicies } from './delivery/mta-sts/mta-sts-policies';
import { createRouteLookups } from './delivery/route-cache';
import type { TransportContext } from './delivery/smtp-transport';
import { AttemptJournal } from './jobs/attempt-journal';
import { createDeliveryBatches, RECORD_STALL_MS, type DeliveryBatches } from './jobs/delivery-batches';
import { LeaseKeeper } from './jobs/lease-keeper';
import { RecordBacklog } from './jobs/record-backlog';
import { createWorkerMetrics, type WorkerMetrics } from './metrics';
import { registerDestinationGauges } from './scheduling/destination-metrics';
import { DestinationScheduler } from './scheduling/destination-scheduler';

/** A destination seen for the first time starts at this concurrency (then adapts, docs/api-decisions.md, "Scheduling"). */
const INITIAL_DESTINATION_CONCURRENCY = 5;

/** Everything a delivery job may touch, built once at boot (and by tests, against real services). */
export interface WorkerDependencies extends DeliveryBatches {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  db: Database;
  /** The BullMQ worker's connection: blocks and reconnects while Redis is away. */
  workerRedis: Redis;
  /** Enqueues retries; fails fast while Redis is away (the reconciler catches up). */
  producerRedis: Redis;
  deliveryQueue: DeliveryQueue;
  transport: TransportContext;
  /** The configured resolver (DNS_SERVERS, DNS_TIMEOUT) for domain re-checks. */
  dns: DnsResolver;
  /** Raw lookups through the same resolvers, for mailauth's SPF evaluation of a re-checked domain's compliance. */
  lookup: RecordLookup;
  /** Builds and DKIM-signs messages, on worker threads. */
  composer: MessageComposer;
  /** Keys the return-path tokens of MAIL FROM (derived from ENCRYPTION_KEY). */
  returnPathKey: Buffer;
  /** How mailed TLS reports are DKIM-signed (TLSRPT_DKIM_SELECTOR, TLSRPT_DKIM_KEY_FILE, read at boot); null: unsigned. */
  tlsReportDkim: ReportSigningKey | null;
  /** Attempt records not stored yet: while they lag, no transaction starts. */
  recordBacklog: RecordBacklog;
  /** Attempt records the database did not take, kept on disk until it does (DELIVERY_JOURNAL_FILE). */
  journal: AttemptJournal;
  /** Renews the leases of the attempts in flight; aborts an attempt whose lease could not be renewed in time. */
  leases: LeaseKeeper;
  /** The source address of each transaction, from the account's egress pool, within its warm-up allowance. */
  egress: EgressPools;
  /** Held deliveries per destination; runs their SMTP transactions, WORKER_CONCURRENCY at once at most. */
  scheduler: DestinationScheduler;
  /** The limits and reply-rule actions every daemon shares (it follows their announcements until closed). */
  sharedLimits: SharedDestinationLimits;
  metrics: WorkerMetrics;
  /** Aborted when the shutdown grace period is over: in-flight attempts stop and release their leases. */
  shutdown: AbortController;
  now: () => Date;
}

export interface ContainerOverrides {
  logger?: Logger;
  now?: () => Date;
}

export function createContainer(config: Config, overrides: ContainerOverrides = {}): WorkerDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'worker' });
  const database = openDatabase(config.databaseUrl, config.databasePoolSize, { genericPlans: true });
  const workerRedis = openRedis(config.redis, 'worker');
  const producerRedis = openRedis(config.redis, 'producer');
  workerRedis.on('error', () => undefined);
  producerRedis.on('error', () => undefined);
  const now = overrides.now ?? (() => new Date());
  const metrics = createWorkerMetrics();
  const recordBacklog = new RecordBacklog();
  // A write of the journal left unanswered fails as a record would, so that claims waiting for it go on.
  const journal = new AttemptJournal(config.worker.journalFile, (writes) => withinStall(writeAttempts(database.db, writes), RECORD_STALL_MS), logger);
  const sharedLimits = new SharedDestinationLimits(producerRedis, config.redisPrefix, (error) =>
    logger.warn('shared destination limits unavailable, applied by this daemon alone', { error: error.message }),
  );
  const scheduler = new DestinationScheduler({
    globalLimit: config.worker.concurrency,
    activeLimit: config.worker.activeLimit,
    tuning: {
      initial: INITIAL_DESTINATION_CONCURRENCY,
      max: config.worker.destinationConcurrency,
      suspendAfterFailures: config.worker.destinationSuspendAfter,
      suspendMs: config.worker.destinationSuspensionMs,
    },
    rules: config.worker.destinationLimits,
    providers: mergeProviders(config.worker.providers.shipped, config.worker.providers.operator),
    replyRules: config.worker.replyRules,
    onReplyRule: (rule) => metrics.replyRuleActions.inc({ rule: rule.name, action: rule.action.kind }),
    paused: () => recordBacklog.behind,
    shared: sharedLimits,
    logger,
  });
  registerDestinationGauges(metrics.registry, () => scheduler.snapshot());
  const shutdown = new AbortController();
  // The lease keeper, route lookups and jobs waiting for room listen to it.
  setMaxListeners(0, shutdown.signal);
  const deps: WorkerDependencies = {
    config,
    logger,
    database,
    db: database.db,
    workerRedis,
    producerRedis,
    deliveryQueue: createDeliveryQueue(producerRedis, config.redisPrefix),
    transport: createTransportContext(config, producerRedis, logger),
    dns: createDnsResolver(config.dns),
    lookup: createRecordLookup(config.dns),
    composer: createMessageComposer(config.encryptionKey, config.worker.compositionThreads),
    returnPathKey: returnPathKey(config.encryptionKey),
    tlsReportDkim: reportSigningKey(config),
    ...createDeliveryBatches(database.db, config.worker.leaseMs, now, () => deps.journal.flush()),
    recordBacklog,
    journal,
    egress: new EgressPools(
      database.db,
      new WarmUpCounters(producerRedis, config.redisPrefix, (error) =>
        logger.warn('warm-up counters unavailable, addresses sending without their caps', { error: error.message }),
      ),
      config.worker.warmUpSchedule,
    ),
    leases: new LeaseKeeper({ db: database.db, leaseMs: config.worker.leaseMs, now, logger, renewals: metrics.leaseRenewals, shutdown: shutdown.signal }),
    scheduler,
    sharedLimits,
    metrics,
    shutdown,
    now,
  };
  return deps;
}

/** DNS, MTA-STS policies (cached in `redis`), SMTP pool and session settings, as configured. */
export function createTransportContext(config: Config, redis: Redis, logger: Logger): TransportContext {
  const dns = createDnsResolver(config.dns);
  const receiverHttps = {
    trustedCa: [...rootCertificates, ...(config.receiverPolicies.mtaStsCaFile ? [readFileSync(config.receiverPolicies.mtaStsCaFile, 'utf8')] : [])],
    allowPrivate: config.smtp.allowPrivateMx,
  };
  const policies = new MtaStsPolicies({ dns, redis, redisPrefix: config.redisPrefix, fetch: { ...receiverHttps, port: config.receiverPolicies.mtaStsPolicyPort }, logger });
  return {
    dns,
    receiverHttps,
    routes: createRouteLookups(dns, policies, config.receiverPolicies.dnssecValidatingResolver ? createAuthenticatedLookups(config.dns) : null),
    pool: new SmtpConnectionPool(config.smtp.poolIdleMs),
    settings: {
      heloName: config.smtp.heloName,
      connectTimeoutMs: config.smtp.connectTimeoutMs,
      commandTimeoutMs: config.smtp.commandTimeoutMs,
      dataTimeoutMs: config.smtp.dataTimeoutMs,
      trustedCa: [...rootCertificates, ...(config.smtp.caFile ? [readFileSync(config.smtp.caFile, 'utf8')] : [])],
    },
    port: config.smtp.port,
    allowPrivateMx: config.smtp.allowPrivateMx,
  };
}

export async function closeContainer(deps: WorkerDependencies): Promise<void> {
  deps.transport.pool.closeAll();
  await deps.composer.close();
  await deps.deliveryQueue.close().catch(() => undefined);
  await deps.sharedLimits.close();
  deps.producerRedis.disconnect();
  deps.workerRedis.disconnect();
  await deps.database.close();
}
