import { trackingHost, tracksAnything, dkimRecordName, dmarcRecordName, organizationalDomain, ownershipRecordName, receivingHost, returnPathHost, type DomainDnsObservation } from '@mailer/domain';
import type { DnsResolver } from './resolver';

/** The whole observation ends within this, so that check-dns answers within 10 s (docs/api-decisions.md, "Domains"). */
export const DNS_CHECK_DEADLINE_MS = 9_000;

/**
 * Looks up the domain's records concurrently (ownership, DKIM at each of its selectors: RSA,
 * Ed25519 when it has that key, and `pendingSelectors` of a rotation; DMARC, and the return-path
 * host's MX and TXT, the host being `<returnPathLabel>.<domain>`, the receiving host's MX while
 * receiving is on, and the tracking host's CNAME while opens or clicks are tracked), under one deadline: a lookup still
 * running when it passes is cancelled and reported as a temporary failure.
 * `_dmarc` of the organizational domain is looked up too when it differs (RFC 7489 section 6.6.3).
 */
export async function observeDomainDns(
  dns: DnsResolver,
  domain: { name: string; dkimSelector: string; dkimEd25519Selector?: string | null; receivingEnabled?: boolean; receivingSubdomain?: string | null; trackingOpens?: boolean; trackingClicks?: boolean; trackingSubdomain?: string },
  returnPathLabel: string,
  pendingSelectors: readonly string[] = [],
  deadlineMs = DNS_CHECK_DEADLINE_MS,
): Promise<DomainDnsObservation> {
  const signal = AbortSignal.timeout(deadlineMs);
  const organizational = organizationalDomain(domain.name);
  const returnPath = returnPathHost(domain.name, returnPathLabel);
  const dkimAt = (selector: string) => dns.txt(dkimRecordName(domain.name, selector), signal);
  const ed25519Selector = domain.dkimEd25519Selector;
  const [ownership, dkim, dmarc, returnPathMx, returnPathTxt, organizationalDmarc, dkimEd25519, pending, receivingMx, trackingCname] = await Promise.all([
    dns.txt(ownershipRecordName(domain.name), signal),
    dns.txt(dkimRecordName(domain.name, domain.dkimSelector), signal),
    dns.txt(dmarcRecordName(domain.name), signal),
    dns.mx(returnPath, signal),
    dns.txt(returnPath, signal),
    organizational === domain.name ? undefined : dns.txt(dmarcRecordName(organizational), signal),
    ed25519Selector ? dkimAt(ed25519Selector) : undefined,
    Promise.all(pendingSelectors.map(async (selector) => ({ selector, answer: await dkimAt(selector) }))),
    domain.receivingEnabled ? dns.mx(receivingHost({ name: domain.name, receivingSubdomain: domain.receivingSubdomain ?? null }), signal) : undefined,
    tracksAnything(domain) ? dns.cname(trackingHost(domain), signal) : undefined,
  ]);
  return {
    ownership,
    dkim,
    dmarc,
    returnPathMx,
    returnPathTxt,
    ...(organizationalDmarc ? { organizationalDmarc } : {}),
    ...(dkimEd25519 ? { dkimEd25519 } : {}),
    ...(receivingMx ? { receivingMx } : {}),
    ...(trackingCname ? { trackingCname } : {}),
    pendingDkim: pending,
  };
}
