import { recordDnsCheck, type Queryable, type DomainRow } from '@mailer/db';
import { evaluateDnsCheck } from '@mailer/domain';
import { observeDomainDns } from './observe-domain-dns';
import type { DnsResolver } from './resolver';

/**
 * One bounded check of a domain's ownership, DKIM and DMARC records, recorded on the
 * domain: what `POST /v1/domains/{id}/check-dns` and the operator's `domain check` run.
 * False when the domain stopped being active meanwhile.
 */
export async function verifyDomainDns(db: Queryable, dns: DnsResolver, domain: DomainRow, now: () => Date): Promise<boolean> {
  const startedAt = now();
  const observation = await observeDomainDns(dns, domain);
  const outcome = evaluateDnsCheck(observation, domain);
  return recordDnsCheck(db, domain.accountId, domain.id, { ...outcome, startedAt, completedAt: now() });
}
