import type { LastCheckStatus, VerificationStatus } from '@mailer/domain';
import type { Queryable, Row } from '../database';

/** A `domains` row. */
export interface DomainRow {
  id: string;
  accountId: string;
  /** A-label, lower case, no trailing dot. */
  name: string;
  externalId: string | null;
  ownershipToken: string;
  dkimSelector: string;
  /** Base64 DER, as it appears in `p=`. */
  dkimPublicKey: string;
  dkimPrivateKeySealed: string;
  /** The Ed25519 key: null until generated for a domain made before Ed25519 (ensureEd25519Key); set together. */
  dkimEd25519Selector: string | null;
  /** Base64 of the bare 32-byte key, as it appears in `p=`. */
  dkimEd25519PublicKey: string | null;
  dkimEd25519PrivateKeySealed: string | null;
  /** Since when these keys sign. */
  dkimActivatedAt: Date;
  ownershipStatus: VerificationStatus;
  dkimStatus: VerificationStatus;
  dkimEd25519Status: VerificationStatus;
  dmarcStatus: VerificationStatus;
  returnPathStatus: VerificationStatus;
  /** Inbound mail (docs/api-decisions.md, "Inbound mail"): on or off, the host it is received at when not the domain, its MX. */
  receivingEnabled: boolean;
  receivingSubdomain: string | null;
  receivingStatus: VerificationStatus;
  /** Opens and clicks (docs/api-decisions.md, "Opens and clicks"): the domain's settings, the label of its tracking host, its CNAME. */
  trackingOpens: boolean;
  trackingClicks: boolean;
  trackingSubdomain: string;
  trackingStatus: VerificationStatus;
  lastCheckStatus: LastCheckStatus | null;
  lastCheckStartedAt: Date | null;
  lastCheckCompletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** The columns toDomainRow reads, of the table aliased `d`. */
export const domainColumns = (db: Queryable) => db`
  d.id, d.account_id, d.name, d.external_id, d.ownership_token, d.dkim_selector, d.dkim_public_key,
  d.dkim_private_key_sealed, d.dkim_ed25519_selector, d.dkim_ed25519_public_key, d.dkim_ed25519_private_key_sealed, d.dkim_activated_at,
  d.ownership_status, d.dkim_status, d.dkim_ed25519_status, d.dmarc_status, d.return_path_status,
  d.receiving_enabled, d.receiving_subdomain, d.receiving_status,
  d.tracking_opens, d.tracking_clicks, d.tracking_subdomain, d.tracking_status, d.last_check_status,
  d.last_check_started_at, d.last_check_completed_at, d.created_at, d.updated_at, d.deleted_at`;

export function toDomainRow(r: Row): DomainRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    externalId: r.external_id,
    ownershipToken: r.ownership_token,
    dkimSelector: r.dkim_selector,
    dkimPublicKey: r.dkim_public_key,
    dkimPrivateKeySealed: r.dkim_private_key_sealed,
    dkimEd25519Selector: r.dkim_ed25519_selector,
    dkimEd25519PublicKey: r.dkim_ed25519_public_key,
    dkimEd25519PrivateKeySealed: r.dkim_ed25519_private_key_sealed,
    dkimActivatedAt: r.dkim_activated_at,
    ownershipStatus: r.ownership_status,
    dkimStatus: r.dkim_status,
    dkimEd25519Status: r.dkim_ed25519_status,
    dmarcStatus: r.dmarc_status,
    returnPathStatus: r.return_path_status,
    receivingEnabled: r.receiving_enabled,
    receivingSubdomain: r.receiving_subdomain,
    receivingStatus: r.receiving_status,
    trackingOpens: r.tracking_opens,
    trackingClicks: r.tracking_clicks,
    trackingSubdomain: r.tracking_subdomain,
    trackingStatus: r.tracking_status,
    lastCheckStatus: r.last_check_status,
    lastCheckStartedAt: r.last_check_started_at,
    lastCheckCompletedAt: r.last_check_completed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}
