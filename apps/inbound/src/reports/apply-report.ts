import { applyDeliveryReport } from '@mailer/operations';
import { readReturnPathRecipient, reportFinding } from '@mailer/domain';
import type { InboundDependencies } from '../container';
import type { ReportResult } from '../metrics';
import { readReport } from './read-report';

/** The delivery and sending domain a return-path address names, when its token verifies. */
function verifiedDelivery(deps: InboundDependencies, address: string): { deliveryId: string; domain: string } | undefined {
  const read = readReturnPathRecipient(deps.returnPathKey, address, deps.config.returnPath.label);
  return read.kind === 'verified' ? { deliveryId: read.deliveryId, domain: read.domain } : undefined;
}

/**
 * Reads one message received on the return path and applies what it reports
 * (docs/api-decisions.md, "Return path"). The delivery is the one the first verifying
 * return-path token names: the envelope recipients' (where the report was sent), then those
 * the report names itself (a complaint's Original-Mail-From, the returned message's
 * Return-Path). Anything that does not verify changes nothing; every message is counted.
 * Database failures are thrown, so that the session answers 451 and the sender retries. At
 * most INBOUND_REPORT_CONCURRENCY messages are parsed at once; the others wait their turn.
 */
export async function applyReport(deps: InboundDependencies, raw: Buffer, envelopeRecipients: readonly string[]): Promise<ReportResult> {
  const report = await deps.reading.run(() => readReport(raw)).catch(() => undefined);
  const count = (kind: string, result: ReportResult) => {
    deps.metrics.reports.inc({ kind, result });
    return result;
  };
  if (!report) return count('none', 'unparseable');
  const target = [...envelopeRecipients, ...report.envelopeSenders].map((a) => verifiedDelivery(deps, a)).find((t) => t !== undefined);
  if (!target) return count(report.kind, 'forged');
  let result: ReportResult = 'ignored';
  for (const recipient of report.recipients) {
    const outcome = await applyDeliveryReport(deps.db, { ...target, recipients: recipient.addresses, report: reportFinding(recipient.report), at: deps.now() });
    if (outcome.kind !== 'none') result = 'applied';
    else if (outcome.reason === 'unknown') result = 'forged';
    else if (outcome.reason === 'unmatched' && result !== 'applied') result = 'unmatched';
    deps.logger.info('report read', { kind: report.kind, report: recipient.report.kind, effect: outcome.kind, reason: 'reason' in outcome ? outcome.reason : undefined });
  }
  return count(report.kind, result);
}
