import { findDomainView, recordDnsCheck, type Queryable, type DomainRow, type DomainView } from '@mailer/db';
import { observeDomainDns, type DnsResolver } from '@mailer/dns';
import { evaluateDnsCheck } from '@mailer/domain';

/**
 * One bounded check of a domain's ownership, DKIM and DMARC records, recorded on the
 * domain: what `POST /v1/domains/{id}/check-dns` and the operator's `domain check` run.
 * Returns the domain as it reads after the check, or undefined when it stopped being
 * active meanwhile (callers answer that as domain_not_found).
 */
export async function checkDomainDns(db: Queryable, dns: DnsResolver, domain: DomainRow, now: () => Date): Promise<DomainView | undefined> {
  const startedAt = now();
  const observation = await observeDomainDns(dns, domain);
  const outcome = evaluateDnsCheck(observation, domain);
  if (!(await recordDnsCheck(db, domain.accountId, domain.id, { ...outcome, startedAt, completedAt: now() }))) return undefined;
  return findDomainView(db, domain.accountId, domain.id);
}
