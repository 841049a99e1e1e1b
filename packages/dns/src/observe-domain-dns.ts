import { dkimRecordName, dmarcRecordName, organizationalDomain, ownershipRecordName, returnPathHost, type DomainDnsObservation } from '@mailer/domain';
import type { DnsResolver } from './resolver';

/** The whole observation ends within this, so that check-dns answers within 10 s (docs/api-decisions.md, "Domains"). */
export const DNS_CHECK_DEADLINE_MS = 9_000;

/**
 * Looks up the domain's records concurrently (ownership, DKIM, DMARC, and the return-path
 * host's MX and TXT, the host being `<returnPathLabel>.<domain>`), under one deadline: a lookup still
 * running when it passes is cancelled and reported as a temporary failure.
 * `_dmarc` of the organizational domain is looked up too when it differs (RFC 7489 section 6.6.3).
 */
export async function observeDomainDns(
  dns: DnsResolver,
  domain: { name: string; dkimSelector: string },
  returnPathLabel: string,
  deadlineMs = DNS_CHECK_DEADLINE_MS,
): Promise<DomainDnsObservation> {
  const signal = AbortSignal.timeout(deadlineMs);
  const organizational = organizationalDomain(domain.name);
  const returnPath = returnPathHost(domain.name, returnPathLabel);
  const [ownership, dkim, dmarc, returnPathMx, returnPathTxt, organizationalDmarc] = await Promise.all([
    dns.txt(ownershipRecordName(domain.name), signal),
    dns.txt(dkimRecordName(domain.name, domain.dkimSelector), signal),
    dns.txt(dmarcRecordName(domain.name), signal),
    dns.mx(returnPath, signal),
    dns.txt(returnPath, signal),
    organizational === domain.name ? undefined : dns.txt(dmarcRecordName(organizational), signal),
  ]);
  return { ownership, dkim, dmarc, returnPathMx, returnPathTxt, ...(organizationalDmarc ? { organizationalDmarc } : {}) };
}
