import { claimTlsReport, settleTlsReport, tlsSessionsOfDay } from '@mailer/operations';
import { parseTlsRptRecord, previousUtcDay } from '@mailer/domain';
import type { WorkerDependencies } from '../container';
import { mailReport, postReport } from './deliver-report';
import { reportContent } from './report-content';

/** How often a daemon looks for the previous day's reports still unsent; the claims make the passes of all daemons send each once. */
export const TLS_REPORT_PASS_MS = 60 * 60 * 1000;

export interface TlsReportPass {
  day: string;
  sent: string[];
  failed: string[];
  withoutRecord: string[];
}

/**
 * One pass of the daily TLS reports (RFC 8460; docs/api-decisions.md, "Receivers' TLS policies"):
 * each recipient domain with sessions on the previous UTC day is claimed (one daemon wins), its
 * `_smtp._tls` record looked up, and the report sent to every `rua` address: POSTed to `https:`
 * ones, mailed to `mailto:` ones when TLSRPT_FROM is set. A report is sent once, whatever
 * happens at its addresses; failures are logged and kept on its row.
 */
export async function sendTlsReports(deps: Pick<WorkerDependencies, 'db' | 'config' | 'logger' | 'transport' | 'now' | 'tlsReportDkim'>): Promise<TlsReportPass> {
  const now = deps.now();
  const day = previousUtcDay(now);
  const pass: TlsReportPass = { day, sent: [], failed: [], withoutRecord: [] };
  const { organization, from } = deps.config.receiverPolicies.tlsReports;
  for (const [policyDomain, counts] of await tlsSessionsOfDay(deps.db, day)) {
    if (!(await claimTlsReport(deps.db, policyDomain, day, now))) continue;
    const txt = await deps.transport.dns.txt(`_smtp._tls.${policyDomain}`);
    const record = txt.kind === 'found' ? parseTlsRptRecord(txt.values) : null;
    if (!record) {
      await settleTlsReport(deps.db, policyDomain, day, 'no_record', txt.kind === 'temporary' ? `lookup failed: ${txt.reason}` : null);
      pass.withoutRecord.push(policyDomain);
      continue;
    }
    const report = await reportContent(deps.transport, { organization, contact: from ?? `postmaster@${organization}`, policyDomain, day, counts });
    const failures: string[] = [];
    let delivered = 0;
    for (const rua of record.rua) {
      const uri = new URL(rua);
      let failure: string | null;
      if (uri.protocol === 'https:') failure = await postReport(deps.transport, uri, report);
      else if (from) failure = await mailReport(deps.transport, { from, dkim: deps.tlsReportDkim }, decodeURIComponent(uri.pathname), report);
      else failure = 'TLSRPT_FROM is not set';
      if (failure) failures.push(`${uri.protocol} ${failure}`);
      else delivered++;
    }
    const status = delivered > 0 ? 'sent' : 'failed';
    await settleTlsReport(deps.db, policyDomain, day, status, failures.length > 0 ? failures.join('; ').slice(0, 1000) : null);
    (status === 'sent' ? pass.sent : pass.failed).push(policyDomain);
    if (failures.length > 0) deps.logger.warn('TLS report not delivered to every address', { domain: policyDomain, day, failures });
  }
  if (pass.sent.length + pass.failed.length > 0) deps.logger.info('TLS reports sent', { day, sent: pass.sent.length, failed: pass.failed.length });
  return pass;
}
