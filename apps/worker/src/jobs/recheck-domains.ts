import { failedRequirements, isDomainReady } from '@mailer/domain';
import { checkDomainDns, claimDomainsForRecheck, domainCompliance } from '@mailer/operations';
import type { WorkerDependencies } from '../container';

/** Domains checked per pass at most, all at once: each check is cut off after 9 s. */
export const RECHECK_BATCH_SIZE = 20;

/**
 * One re-check pass (docs/api-decisions.md, "Domains"): ready domains whose last check is
 * older than DOMAIN_RECHECK_INTERVAL are checked again, as `POST /v1/domains/{id}/check-dns`
 * checks them: a record authoritatively gone makes its component `missing` (the domain is
 * then not ready and its senders cannot send), a temporary failure changes no component.
 * A domain still ready is judged against the mailbox providers' rules (domainCompliance), and each
 * requirement it fails is warned about once per re-check, naming the domain, provider and
 * requirement. Every daemon runs passes; a domain is claimed by one of them. Returns how many were checked.
 */
export async function recheckDomains(deps: Pick<WorkerDependencies, 'db' | 'dns' | 'lookup' | 'config' | 'logger' | 'now'>): Promise<number> {
  const now = deps.now();
  const due = await claimDomainsForRecheck(deps.db, {
    now,
    cutoff: new Date(now.getTime() - deps.config.worker.domainRecheckIntervalMs),
    limit: RECHECK_BATCH_SIZE,
  });
  await Promise.all(
    due.map(async (domain) => {
      const log = deps.logger.child({ domain_id: domain.id });
      try {
        const checked = await checkDomainDns(deps.db, deps.dns, deps.config.returnPath, deps.config.encryptionKey, domain, deps.now);
        if (checked && !isDomainReady(checked)) {
          log.warn('domain no longer ready after its re-check', { ownership: checked.ownershipStatus, dkim: checked.dkimStatus, dmarc: checked.dmarcStatus });
        } else if (checked) {
          for (const { provider, verdict } of failedRequirements(await domainCompliance(deps, checked))) {
            log.warn("ready domain fails a mailbox provider's requirement", { domain: checked.name, provider, requirement: verdict.requirement, reason: verdict.reason });
          }
        }
      } catch (error) {
        log.warn('domain re-check failed', { error: (error as Error).message });
      }
    }),
  );
  return due.length;
}
