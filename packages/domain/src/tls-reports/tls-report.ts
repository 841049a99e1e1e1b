import type { TlsPolicyApplied } from '../senders/transport-security';
import type { TlsResult } from '../delivery/tls-failure';

/** The policy types of RFC 8460 section 4.4. */
export type TlsReportPolicyType = 'sts' | 'tlsa' | 'no-policy-found';

/** Sessions of one UTC day to one recipient domain, as the attempts recorded them. */
export interface TlsSessionCount {
  policy: TlsPolicyApplied;
  result: TlsResult;
  mxHost: string | null;
  mxAddress: string | null;
  sessions: number;
}

export interface TlsReportInput {
  organizationName: string;
  contactInfo: string;
  /** The UTC day reported, `YYYY-MM-DD`. */
  day: string;
  policyDomain: string;
  counts: readonly TlsSessionCount[];
  /** The policy strings known for the report: the MTA-STS policy's lines and patterns, the TLSA records per MX host. */
  stsPolicy: { lines: string[]; mx: string[] } | null;
  tlsaRecords: ReadonlyMap<string, string[]>;
}

/** The policy type of the TLS policy an attempt applied: MTA-STS and DANE are policies, the sender's settings are not. */
export function reportPolicyType(policy: TlsPolicyApplied): TlsReportPolicyType {
  return policy === 'mta-sts' ? 'sts' : policy === 'dane' ? 'tlsa' : 'no-policy-found';
}

/** A report's id: unique per submitter, policy domain and day. */
export const tlsReportId = (organizationName: string, policyDomain: string, day: string) => `${day}_${policyDomain}@${organizationName}`;

/**
 * The report of RFC 8460 section 4.4 for one policy domain and UTC day: one policy entry per
 * policy type (per MX host for DANE, whose records are per host), its session summary, and the
 * failures by result type, MX host and address. The sending MTA's address is not recorded per
 * attempt, so `sending-mta-ip` is left out (docs/api-decisions.md, "Receivers' TLS policies").
 */
export function buildTlsReport(input: TlsReportInput): Record<string, unknown> {
  const groups = new Map<string, { type: TlsReportPolicyType; mxHost: string | null; counts: TlsSessionCount[] }>();
  for (const count of input.counts) {
    const type = reportPolicyType(count.policy);
    const mxHost = type === 'tlsa' ? count.mxHost : null;
    const key = `${type}|${mxHost ?? ''}`;
    const group = groups.get(key) ?? { type, mxHost, counts: [] };
    group.counts.push(count);
    groups.set(key, group);
  }
  const policies = [...groups.values()].map(({ type, mxHost, counts }) => {
    const failures = new Map<string, { 'result-type': string; 'receiving-mx-hostname'?: string; 'receiving-ip'?: string; 'failed-session-count': number }>();
    for (const c of counts.filter((c) => c.result !== 'success')) {
      const key = `${c.result}|${c.mxHost ?? ''}|${c.mxAddress ?? ''}`;
      const entry = failures.get(key) ?? {
        'result-type': c.result,
        ...(c.mxHost ? { 'receiving-mx-hostname': c.mxHost } : {}),
        ...(c.mxAddress ? { 'receiving-ip': c.mxAddress } : {}),
        'failed-session-count': 0,
      };
      entry['failed-session-count'] += c.sessions;
      failures.set(key, entry);
    }
    const sum = (pick: (c: TlsSessionCount) => boolean) => counts.filter(pick).reduce((total, c) => total + c.sessions, 0);
    const strings = type === 'sts' ? input.stsPolicy?.lines : type === 'tlsa' && mxHost ? input.tlsaRecords.get(mxHost) : undefined;
    const mx = type === 'sts' ? input.stsPolicy?.mx : type === 'tlsa' && mxHost ? [mxHost] : undefined;
    return {
      policy: {
        'policy-type': type,
        ...(strings ? { 'policy-string': strings } : {}),
        'policy-domain': input.policyDomain,
        ...(mx ? { 'mx-host': mx } : {}),
      },
      summary: {
        'total-successful-session-count': sum((c) => c.result === 'success'),
        'total-failure-session-count': sum((c) => c.result !== 'success'),
      },
      ...(failures.size > 0 ? { 'failure-details': [...failures.values()] } : {}),
    };
  });
  return {
    'organization-name': input.organizationName,
    'date-range': { 'start-datetime': `${input.day}T00:00:00Z`, 'end-datetime': `${input.day}T23:59:59Z` },
    'contact-info': input.contactInfo,
    'report-id': tlsReportId(input.organizationName, input.policyDomain, input.day),
    policies,
  };
}

/**
 * The report addresses of a `_smtp._tls.<domain>` TXT answer (RFC 8460 section 3): exactly one
 * record starting `v=TLSRPTv1`, its `rua` a comma-separated list of `mailto:` and `https:`
 * URIs; anything else is no record.
 */
export function parseTlsRptRecord(records: readonly string[]): { rua: string[] } | null {
  const candidates = records.filter((r) => /^v=TLSRPTv1\s*(;|$)/.test(r.trim()));
  if (candidates.length !== 1) return null;
  const fields = new Map(
    candidates[0]!
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => [part.slice(0, part.indexOf('=')).trim().toLowerCase(), part.slice(part.indexOf('=') + 1).trim()] as const),
  );
  const rua = (fields.get('rua') ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => /^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/i.test(uri));
  return rua.length > 0 ? { rua } : null;
}

/** The previous UTC day of `now`, `YYYY-MM-DD`: the day a daily report covers. */
export function previousUtcDay(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)).toISOString().slice(0, 10);
}
