import type { VerificationStatus } from './dns-check';

/** A domain's component statuses, as each check-dns leaves them. */
export interface DomainComponentStatuses {
  ownershipStatus: VerificationStatus;
  dkimStatus: VerificationStatus;
  dmarcStatus: VerificationStatus;
}

/** Ready to send (docs/api-decisions.md, "Domains"): ownership, DKIM and DMARC all verified. */
export function isDomainReady(domain: DomainComponentStatuses): boolean {
  return domain.ownershipStatus === 'verified' && domain.dkimStatus === 'verified' && domain.dmarcStatus === 'verified';
}
