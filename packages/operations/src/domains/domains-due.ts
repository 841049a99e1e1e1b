// The domains the daemon's periodic jobs take up: those due a DNS recheck and those due a DKIM rotation.
export { claimDomainsForRecheck, findDomainsDueForRotation } from '@mailer/db';
