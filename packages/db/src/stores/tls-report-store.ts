import { TLS_POLICIES_APPLIED, TLS_RESULTS, type TlsSessionCount } from '@mailer/domain';
import type { Database } from '../database';

/** A claim older than this was left by a daemon that died sending it: another daemon takes it over. */
export const TLS_REPORT_CLAIM_STALE_MS = 60 * 60 * 1000;

const oneOf = <T extends string>(values: readonly T[], value: string): T => {
  const found = values.find((v) => v === value);
  if (!found) throw new Error(`unexpected value ${value}`);
  return found;
};

/**
 * The sessions of one UTC day (`YYYY-MM-DD`) by recipient domain, policy, result, MX host and
 * address, from the attempts' TLS evidence (docs/api-decisions.md, "Receivers' TLS policies").
 */
export async function tlsSessionsOfDay(db: Database, day: string): Promise<Map<string, TlsSessionCount[]>> {
  const rows = await db`
    select recipient_domain, tls_policy, tls_result, mx_host, mx_address, count(*)::int as sessions
      from attempts
     where tls_result is not null and recipient_domain is not null
       and started_at >= ${day}::date::timestamp at time zone 'UTC'
       and started_at < (${day}::date + 1)::timestamp at time zone 'UTC'
     group by recipient_domain, tls_policy, tls_result, mx_host, mx_address
     order by recipient_domain, tls_policy, tls_result, mx_host, mx_address`;
  const byDomain = new Map<string, TlsSessionCount[]>();
  for (const r of rows) {
    const counts = byDomain.get(r.recipient_domain) ?? [];
    counts.push({
      policy: oneOf(TLS_POLICIES_APPLIED, r.tls_policy),
      result: oneOf(TLS_RESULTS, r.tls_result),
      mxHost: r.mx_host,
      mxAddress: r.mx_address,
      sessions: r.sessions,
    });
    byDomain.set(r.recipient_domain, counts);
  }
  return byDomain;
}

/**
 * Claims the report of one domain and day for this daemon: true for the one claim that wins
 * (the first, or the one taking over a claim stale since TLS_REPORT_CLAIM_STALE_MS), false when
 * the report was sent, settled or is being sent elsewhere.
 */
export async function claimTlsReport(db: Database, policyDomain: string, day: string, now: Date): Promise<boolean> {
  const stale = new Date(now.getTime() - TLS_REPORT_CLAIM_STALE_MS);
  const rows = await db`
    insert into tls_reports (policy_domain, day, status, claimed_at)
    values (${policyDomain}, ${day}::date, 'sending', ${now})
    on conflict (policy_domain, day) do update set claimed_at = excluded.claimed_at
     where tls_reports.status = 'sending' and tls_reports.claimed_at < ${stale}
    returning policy_domain`;
  return rows.length === 1;
}

/** How a claimed report ended: sent (to at least one address), failed everywhere, or no TLSRPT record. */
export async function settleTlsReport(db: Database, policyDomain: string, day: string, status: 'sent' | 'failed' | 'no_record', detail: string | null): Promise<void> {
  await db`update tls_reports set status = ${status}, detail = ${detail} where policy_domain = ${policyDomain} and day = ${day}::date`;
}
