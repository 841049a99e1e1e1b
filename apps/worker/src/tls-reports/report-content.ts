import { gzipSync } from 'node:zlib';
import { buildTlsReport, tlsReportId, type TlsSessionCount } from '@mailer/domain';
import type { TransportContext } from '../delivery/smtp-transport';

/** One day's report for one policy domain, as sent: the RFC 8460 JSON, gzipped. */
export interface TlsReportContent {
  policyDomain: string;
  day: string;
  reportId: string;
  organization: string;
  gzipped: Buffer;
}

/**
 * The report of one policy domain and day, with the policy strings the daemons hold now: the
 * domain's MTA-STS policy (shared cache) and the TLSA records of each MX host DANE applied to.
 */
export async function reportContent(
  transport: TransportContext,
  input: { organization: string; contact: string; policyDomain: string; day: string; counts: readonly TlsSessionCount[] },
): Promise<TlsReportContent> {
  const { policyDomain, day, counts, organization } = input;
  const sts = counts.some((c) => c.policy === 'mta-sts') ? await transport.routes.mtaStsPolicy(policyDomain) : null;
  const tlsaRecords = new Map<string, string[]>();
  const daneHosts = [...new Set(counts.filter((c) => c.policy === 'dane' && c.mxHost).map((c) => c.mxHost!))];
  for (const host of daneHosts) {
    const answer = await transport.routes.authenticated?.tlsa(host);
    if (answer?.kind === 'found') tlsaRecords.set(host, answer.values.map((r) => `${r.usage} ${r.selector} ${r.matchingType} ${r.data.toString('hex')}`));
  }
  const policy = sts?.kind === 'policy' ? sts.policy : null;
  const report = buildTlsReport({
    organizationName: organization,
    contactInfo: input.contact,
    day,
    policyDomain,
    counts,
    stsPolicy: policy && {
      lines: ['version: STSv1', `mode: ${policy.mode}`, ...policy.mx.map((mx) => `mx: ${mx}`), `max_age: ${policy.maxAgeSeconds}`],
      mx: policy.mx,
    },
    tlsaRecords,
  });
  return { policyDomain, day, reportId: tlsReportId(organization, policyDomain, day), organization, gzipped: gzipSync(JSON.stringify(report)) };
}
