import { dkimRecordName, dmarcRecordName, organizationalDomain, ownershipRecordName, type DomainDnsObservation } from '@mailer/domain';
import type { DnsResolver } from './resolver';

/** The whole observation ends within this, so that check-dns answers within 10 s (docs/api-decisions.md, "Domains"). */
export const DNS_CHECK_DEADLINE_MS = 9_000;

/**
 * Looks up the domain's three records concurrently, under one deadline: a lookup still
 * running when it passes is cancelled and reported as a temporary failure.
 * `_dmarc` of the organizational domain is looked up too when it differs (RFC 7489 section 6.6.3).
 */
export async function observeDomainDns(
  dns: DnsResolver,
  domain: { name: string; dkimSelector: string },
  deadlineMs = DNS_CHECK_DEADLINE_MS,
): Promise<DomainDnsObservation> {
  const signal = AbortSignal.timeout(deadlineMs);
  const organizational = organizationalDomain(domain.name);
  const [ownership, dkim, dmarc, organizationalDmarc] = await Promise.all([
    dns.txt(ownershipRecordName(domain.name), signal),
    dns.txt(dkimRecordName(domain.name, domain.dkimSelector), signal),
    dns.txt(dmarcRecordName(domain.name), signal),
    organizational === domain.name ? undefined : dns.txt(dmarcRecordName(organizational), signal),
  ]);
  return { ownership, dkim, dmarc, ...(organizationalDmarc ? { organizationalDmarc } : {}) };
}
