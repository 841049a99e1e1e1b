import type { Server } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '@mailer/config';
import { serveMetrics } from '@mailer/operations';
import type { Logger } from '@mailer/logger';

/** The daemon's Prometheus metrics. Labels carry outcomes and causes only, never an address or host. */
export interface WorkerMetrics {
  registry: Registry;
  /** SMTP transactions and local decisions, by outcome and cause. */
  attempts: Counter<'outcome' | 'cause'>;
  /** Delivery decisions, by the status they left the delivery in. */
  deliveries: Counter<'status'>;
  /** From routing a domain's recipients to the end of their SMTP transaction. */
  transactionSeconds: Histogram;
  /** From a message's acceptance to the attempt that left every delivery terminal. */
  completionSeconds: Histogram;
  messages: Counter<'result'>;
  /** Jobs the reconciler added because Redis did not hold them. */
  reconcilerEnqueued: Counter;
  /** Lease renewal statements by result (`renewed`, `failed`). */
  leaseRenewals: Counter<'result'>;
  /** Deliveries postponed to the next UTC day: no address of their pool had warm-up allowance left for the provider. */
  warmUpPostponed: Counter<'pool' | 'provider'>;
  /** Reply rules applied to destinations, by rule name and action (docs/api-decisions.md, "Reply rules"). */
  replyRuleActions: Counter<'rule' | 'action'>;
  /**
   * SMTP sessions by the TLS policy that applied (`opportunistic`, `require_tls`, `mta-sts`) and
   * whether they met it (`success`, `failure`; docs/api-decisions.md, "Receivers' TLS policies").
   */
  tlsSessions: Counter<'policy' | 'result'>;
}

export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    attempts: new Counter({ name: 'mailer_delivery_attempts_total', help: 'Delivery attempts by outcome and cause.', labelNames: ['outcome', 'cause'], registers: [registry] }),
    deliveries: new Counter({ name: 'mailer_delivery_decisions_total', help: 'Delivery status changes after attempts.', labelNames: ['status'], registers: [registry] }),
    transactionSeconds: new Histogram({
      name: 'mailer_delivery_transaction_seconds',
      help: 'Duration of one recipient domain transaction, lookups included.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    completionSeconds: new Histogram({
      name: 'mailer_email_completion_seconds',
      help: 'From acceptance to a terminal status (every delivery accepted, bounced or failed), per message.',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3_600, 14_400, 86_400, 259_200],
      registers: [registry],
    }),
    messages: new Counter({ name: 'mailer_delivery_messages_total', help: 'Messages worked on by delivery jobs (a job carries one or several), by result.', labelNames: ['result'], registers: [registry] }),
    reconcilerEnqueued: new Counter({ name: 'mailer_reconciler_enqueued_total', help: 'Owed deliveries re-enqueued by the reconciler.', registers: [registry] }),
    leaseRenewals: new Counter({ name: 'mailer_lease_renewals_total', help: 'Lease renewal statements by result.', labelNames: ['result'], registers: [registry] }),
    warmUpPostponed: new Counter({
      name: 'mailer_warm_up_postponed_deliveries_total',
      help: "Deliveries postponed to the next UTC day: their pool's addresses had no warm-up allowance left for the provider.",
      labelNames: ['pool', 'provider'],
      registers: [registry],
    }),
    replyRuleActions: new Counter({
      name: 'mailer_reply_rule_actions_total',
      help: 'Reply rules applied to a destination after its reply, by rule and action (suspend, concurrency, rate).',
      labelNames: ['rule', 'action'],
      registers: [registry],
    }),
    tlsSessions: new Counter({
      name: 'mailer_tls_sessions_total',
      help: 'SMTP sessions by the TLS policy that applied and whether they met it.',
      labelNames: ['policy', 'result'],
      registers: [registry],
    }),
  };
}

/** The daemon's `/metrics` and `/healthz` on WORKER_METRICS_PORT (see serveMetrics of @mailer/operations). */
export function serveWorkerMetrics(metrics: WorkerMetrics, config: Config, logger: Logger): Server {
  return serveMetrics(metrics.registry, { port: config.workerMetricsPort, host: config.host, operatorToken: config.operatorToken }, logger);
}
