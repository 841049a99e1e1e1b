import { findDomainView, inTransaction, lockDomainStatuses, recordDnsCheck, webhookEventsOutbox, type Database, type DomainRow, type DomainView } from '@mailer/db';
import { observeDomainDns, type DnsResolver } from '@mailer/dns';
import { evaluateDnsCheck, isDomainReady, type ReturnPathSettings } from '@mailer/domain';
import { serializeDomain } from './domain-representation';

/**
 * One bounded check of a domain's ownership, DKIM, DMARC and return-path records, recorded on the
 * domain: what `POST /v1/domains/{id}/check-dns` and the operator's `domain check` run.
 * When the check changes the domain's readiness, a `domain.status_changed` webhook event
 * carrying the domain's representation is recorded in the same transaction. Returns the
 * domain as it reads after the check, or undefined when it stopped being active meanwhile
 * (callers answer that as domain_not_found).
 */
export async function checkDomainDns(
  db: Database,
  dns: DnsResolver,
  returnPath: ReturnPathSettings,
  domain: DomainRow,
  now: () => Date,
): Promise<DomainView | undefined> {
  const startedAt = now();
  const observation = await observeDomainDns(dns, domain, returnPath.label);
  const outcome = evaluateDnsCheck(observation, { ...domain, returnPath });
  return inTransaction(db, async (tx) => {
    const completedAt = now();
    const before = await lockDomainStatuses(tx.sql, domain.accountId, domain.id);
    if (!before || !(await recordDnsCheck(tx.sql, domain.accountId, domain.id, { ...outcome, startedAt, completedAt }))) return undefined;
    const view = await findDomainView(tx.sql, domain.accountId, domain.id);
    if (view && isDomainReady(view) !== isDomainReady(before)) {
      await tx.send(webhookEventsOutbox(tx, [{ accountId: domain.accountId, type: 'domain.status_changed', data: serializeDomain(view), at: completedAt }]));
    }
    return view;
  });
}
