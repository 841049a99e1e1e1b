import { isIP } from 'node:net';
import type { Config } from '@mailer/config';
import { acceptedAttemptsTls, accountEgressAddresses, findSendingStates, type DomainRow, type Queryable } from '@mailer/db';
import { DNS_CHECK_DEADLINE_MS, evaluateSpf, observeReverseDns, type DnsResolver, type RecordLookup } from '@mailer/dns';
import { complianceReport, mergeProviders, returnPathHost, tlsCountsByProvider, type ProviderCompliance } from '@mailer/domain';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What gathering the facts reads: the stores, the configured resolvers and the settings that say how mail leaves. */
export interface ComplianceSources {
  db: Queryable;
  dns: DnsResolver;
  /** mailauth's lookups (SPF), through the same resolvers. */
  lookup: RecordLookup;
  config: Pick<Config, 'returnPath' | 'smtp' | 'worker'>;
  now: () => Date;
}

/**
 * The addresses the account's mail leaves from: its egress pool's; without one, the single
 * addresses OUTBOUND_IPS names (its ranges say nothing of which address is used); possibly none.
 */
async function egressAddresses(sources: ComplianceSources, accountId: string): Promise<string[]> {
  const pooled = await accountEgressAddresses(sources.db, accountId);
  return pooled.length > 0 ? pooled : sources.config.returnPath.outboundIps.filter((ip) => isIP(ip) !== 0);
}

/**
 * The domain judged against the mailbox providers' published rules (docs/api-decisions.md,
 * "Mailbox providers' rules"): SPF of the envelope domain for every egress address and their
 * forward-confirmed reverse DNS, looked up now (the reverse lookups under the check-dns
 * deadline); DKIM and DMARC as the domain's last check found them; TLS from the domain's
 * accepted attempts of the last 24 h; the account's complaint rate over its reputation window.
 */
export async function domainCompliance(sources: ComplianceSources, domain: DomainRow): Promise<ProviderCompliance[]> {
  const now = sources.now();
  const { returnPath, smtp, worker } = sources.config;
  const envelopeDomain = domain.returnPathStatus === 'verified' ? returnPathHost(domain.name, returnPath.label) : domain.name;
  const signal = AbortSignal.timeout(DNS_CHECK_DEADLINE_MS);
  const addresses = await egressAddresses(sources, domain.accountId);
  const [spf, reverseDns, attempts, streams] = await Promise.all([
    Promise.all(addresses.map((address) => evaluateSpf(sources.lookup, { address, envelopeDomain, heloName: smtp.heloName }))),
    Promise.all(addresses.map((address) => observeReverseDns(sources.dns, address, signal))),
    acceptedAttemptsTls(sources.db, domain, new Date(now.getTime() - DAY_MS), worker.maxDeliveryAgeMs),
    findSendingStates(sources.db, domain.accountId, now),
  ]);
  // A stream with mail in the window has its own rate; with none anywhere, the transactional stream says unknown.
  const sent = streams.filter((s) => s.window.accepted > 0);
  return complianceReport({
    domain: domain.name,
    envelopeDomain,
    spf,
    dkim: domain.dkimStatus,
    dmarc: domain.dmarcStatus,
    reverseDns,
    tls: tlsCountsByProvider(mergeProviders(worker.providers.shipped, worker.providers.operator), attempts),
    // The RFC 8058 headers are added to every broadcast message as it is built (CONTRACT section 26).
    oneClickUnsubscribe: true,
    complaintRates: (sent.length > 0 ? sent : streams.slice(0, 1)).map((s) => ({ stream: s.stream, accepted: s.window.accepted, complaints: s.window.complaints })),
  });
}
