import { isSubdomainOf, validationError } from '@mailer/domain';
import { updateDomainSettings, type DomainRow, type Queryable } from '@mailer/db';
import { domainNotFound } from './domain-not-found';

/** What a request may change of PATCH /v1/domains/{id}'s settings; a field left out keeps its value. */
export interface DomainSettingsChange {
  receiving?: boolean;
  receivingSubdomain?: string | null;
  tracking?: { opens?: boolean; clicks?: boolean; subdomain?: string };
}

/**
 * Applies a change of receiving and tracking to an active domain (PATCH /v1/domains/{id}, and
 * Resend's create and update of a domain). Throws validation_error for a receiving host outside
 * the domain and domain_not_found when the domain was deleted meanwhile.
 */
export async function changeDomainSettings(db: Queryable, domain: DomainRow, change: DomainSettingsChange, now: Date): Promise<void> {
  const receivingSubdomain = change.receivingSubdomain === undefined ? domain.receivingSubdomain : change.receivingSubdomain;
  if (receivingSubdomain !== null && !isSubdomainOf(receivingSubdomain, domain.name)) {
    throw validationError([{ path: 'receiving_subdomain', message: `must be a subdomain of ${domain.name}` }]);
  }
  const updated = await updateDomainSettings(
    db,
    domain,
    {
      receivingEnabled: change.receiving ?? domain.receivingEnabled,
      receivingSubdomain,
      trackingOpens: change.tracking?.opens ?? domain.trackingOpens,
      trackingClicks: change.tracking?.clicks ?? domain.trackingClicks,
      trackingSubdomain: change.tracking?.subdomain ?? domain.trackingSubdomain,
    },
    now,
  );
  if (!updated) throw domainNotFound();
}
