import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { owedDeliveriesSummary, sendingStatuses, type OwedDeliveriesSummary, type Queryable } from '@mailer/operations';
import { SENDING_STATUSES } from '@mailer/domain';
import { MESSAGES_PER_JOB, type DeliveryQueue } from '@mailer/queue';

/** The API's Prometheus metrics, one registry per container so test containers never collide. */
export interface ApiMetrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  emailsAccepted: Counter;
  recipientsAccepted: Counter;
  /** Error answers by their code (docs/api-decisions.md, "Errors"). */
  refusals: Counter<'code'>;
}

/**
 * The registry of this API process. Besides its own counters it reports, read at scrape time,
 * the delivery queue's jobs (Redis), the owed deliveries (PostgreSQL, one cheap statement) and
 * each account's sending status: figures of the whole service, the same on every API process.
 */
export function createApiMetrics(deliveryQueue: DeliveryQueue, db: Queryable, now: () => Date): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics: ApiMetrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: 'mailer_http_request_duration_seconds',
      help: 'HTTP requests by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    emailsAccepted: new Counter({ name: 'mailer_emails_accepted_total', help: 'Messages accepted (202, not replays).', registers: [registry] }),
    recipientsAccepted: new Counter({ name: 'mailer_recipients_accepted_total', help: 'Recipient-emails accepted.', registers: [registry] }),
    refusals: new Counter<'code'>({ name: 'mailer_http_refusals_total', help: 'Error answers by error code.', labelNames: ['code'], registers: [registry] }),
  };
  new Gauge({
    name: 'mailer_queue_jobs',
    help: `Delivery queue jobs by state (read from Redis at scrape time; a job carries one message, or up to ${MESSAGES_PER_JOB} accepted together).`,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      try {
        const counts = await deliveryQueue.queue.getJobCounts('waiting', 'delayed', 'active', 'failed');
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      } catch {
        // Redis away: the gauge keeps its last values; /readyz reports the outage.
      }
    },
  });
  // Both gauges below are collected in one scrape from one statement. With the database away
  // they keep their last values, as the queue gauge does with Redis away; /readyz reports it.
  let summary: Promise<OwedDeliveriesSummary | undefined> | undefined;
  const owed = () =>
    (summary ??= owedDeliveriesSummary(db)
      .catch(() => undefined)
      .finally(() => setImmediate(() => (summary = undefined))));
  new Gauge({
    name: 'mailer_deliveries_owed',
    help: 'Recipient deliveries owed an attempt (queued, sending, deferred), by status (read from PostgreSQL at scrape time).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const found = await owed();
      if (found) for (const [status, count] of Object.entries(found.byStatus)) this.set({ status }, count);
    },
  });
  new Gauge({
    name: 'mailer_oldest_owed_delivery_age_seconds',
    help: 'Seconds since the oldest owed delivery was accepted; 0 when none is owed (read from PostgreSQL at scrape time).',
    registers: [registry],
    async collect() {
      const found = await owed();
      if (!found) return;
      this.set(found.oldestCreatedAt ? Math.max(0, (now().getTime() - found.oldestCreatedAt.getTime()) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'mailer_account_sending_status',
    help: `Each account stream's sending status: 1 for the status it is in, 0 for the others (${SENDING_STATUSES.join(', ')}; read from PostgreSQL at scrape time).`,
    labelNames: ['account_id', 'stream', 'status'],
    registers: [registry],
    async collect() {
      const found = await sendingStatuses(db).catch(() => undefined);
      if (!found) return;
      this.reset();
      for (const { accountId, stream, status } of found) {
        for (const s of SENDING_STATUSES) this.set({ account_id: accountId, stream, status: s }, Number(s === status));
      }
    },
  });
  return metrics;
}
