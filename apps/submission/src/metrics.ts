import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** The listener's Prometheus metrics. Labels carry results and contract codes only, never an address or a key. */
export interface SubmissionMetrics {
  registry: Registry;
  /** Messages after DATA by result (`accepted`, `replayed`, `refused`) and the contract code of a refusal (`none` otherwise). */
  messages: Counter<'result' | 'code'>;
  /** AUTH attempts refused (wrong user name or key). */
  authFailures: Counter;
  /** Connections and AUTH attempts refused to an address throttled for its failed AUTHs. */
  throttled: Counter;
  /** Connections refused past SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS or SUBMISSION_MAX_CONNECTIONS. */
  refusedConnections: Counter;
}

export function createSubmissionMetrics(): SubmissionMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    messages: new Counter({
      name: 'mailer_submission_messages_total',
      help: 'Messages submitted over SMTP, by result and refusal code.',
      labelNames: ['result', 'code'],
      registers: [registry],
    }),
    authFailures: new Counter({ name: 'mailer_submission_auth_failures_total', help: 'Refused SMTP AUTH attempts.', registers: [registry] }),
    throttled: new Counter({
      name: 'mailer_submission_throttled_total',
      help: 'Connections and AUTH attempts refused to addresses throttled after failed AUTHs.',
      registers: [registry],
    }),
    refusedConnections: new Counter({
      name: 'mailer_submission_refused_connections_total',
      help: 'Connections refused past the per-address or total cap.',
      registers: [registry],
    }),
  };
}
