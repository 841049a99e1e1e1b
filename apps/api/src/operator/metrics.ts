import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { MESSAGES_PER_JOB, type DeliveryQueue } from '@mailer/queue';

/** The API's Prometheus metrics, one registry per container so test containers never collide. */
export interface ApiMetrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  emailsAccepted: Counter;
  recipientsAccepted: Counter;
}

export function createApiMetrics(deliveryQueue: DeliveryQueue): ApiMetrics {
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
  return metrics;
}
