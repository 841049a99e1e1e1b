import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadingLimit } from './reports/reading-limit';

/** What became of a message the listener took: a report applied or ignored, or why it changed nothing. */
export const REPORT_RESULTS = ['applied', 'ignored', 'unmatched', 'forged', 'unparseable'] as const;
export type ReportResult = (typeof REPORT_RESULTS)[number];

/**
 * Why a RCPT TO was refused: `other` (not a return-path address), `forged` (its token does not
 * verify), `unknown` (a verified token whose delivery is gone or not of that domain, or the
 * domain is deleted), `too_many` (past the recipients a message may have), `rate_limited` (a
 * routed address whose account received INBOUND_RATE_LIMIT messages within INBOUND_RATE_WINDOW);
 * `other` also covers an address no enabled route of a receiving domain matches.
 */
export type RecipientRefusal = 'other' | 'forged' | 'unknown' | 'too_many' | 'rate_limited';

/** The listener's Prometheus metrics. Labels carry kinds and results only, never an address. */
export interface InboundMetrics {
  registry: Registry;
  /**
   * Messages by report kind (`dsn`, `arf`, `unsubscribe` for a List-Unsubscribe mailto: message, `none` when unparseable) and result: `applied` (a
   * delivery bounced, or an event was added), `ignored` (valid, but nothing to change: a
   * success, a soft failure, a delivery not accepted), `unmatched` (the token's transaction
   * holds no such recipient), `forged` (no return-path token verifies, or its domain differs)
   * and `unparseable` (neither a DSN nor an ARF report).
   */
  reports: Counter<'kind' | 'result'>;
  /** RCPT TO refused, by reason. */
  refusedRecipients: Counter<'reason'>;
  /** Connections refused past INBOUND_MAX_CONNECTIONS_PER_ADDRESS or INBOUND_MAX_CONNECTIONS. */
  refusedConnections: Counter;
}

export function createInboundMetrics(reading: ReadingLimit): InboundMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'mailer_inbound_reports_reading',
    help: 'Messages being parsed now (at most INBOUND_REPORT_CONCURRENCY).',
    registers: [registry],
    collect() {
      this.set(reading.running());
    },
  });
  new Gauge({
    name: 'mailer_inbound_reports_waiting',
    help: 'Messages received and waiting for their turn to be parsed.',
    registers: [registry],
    collect() {
      this.set(reading.waiting());
    },
  });
  return {
    registry,
    reports: new Counter({ name: 'mailer_inbound_reports_total', help: 'Messages received on the return path, by report kind and result.', labelNames: ['kind', 'result'], registers: [registry] }),
    refusedRecipients: new Counter({ name: 'mailer_inbound_refused_recipients_total', help: 'RCPT TO refused by the inbound listener, by reason.', labelNames: ['reason'], registers: [registry] }),
    refusedConnections: new Counter({
      name: 'mailer_inbound_refused_connections_total',
      help: 'Connections refused past the per-address or total cap.',
      registers: [registry],
    }),
  };
}
