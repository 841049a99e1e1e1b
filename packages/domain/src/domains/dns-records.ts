import type { DkimAlgorithm } from '../crypto/dkim-key';
import { randomBase62 } from '../ids';
import { retiringUntil, type DkimKeyState } from './dkim-lifecycle';
import { returnPathHost } from '../return-path/return-path';
import { returnPathSpfRecord, type SpfSources } from '../return-path/return-path-records';
import { receivingHost } from '../inbound/route-pattern';

/**
 * The components a DNS check judges (docs/api-decisions.md, "Domains"): ownership, DKIM (the RSA
 * key) and DMARC make a domain ready to send; `dkim_ed25519` only decides whether the Ed25519
 * signature is added, `return_path` the envelope sender, `receiving` whether mail reaches the
 * inbound listener (docs/api-decisions.md, "Inbound mail"), judged only while receiving is on,
 * `tracking` whether the tracking host reaches the API ("Opens and clicks"), judged only while
 * opens or clicks are tracked.
 */
export const DNS_COMPONENTS = ['ownership', 'dkim', 'dkim_ed25519', 'dmarc', 'return_path', 'receiving', 'tracking'] as const;
export type DnsComponent = (typeof DNS_COMPONENTS)[number];

/**
 * The records a domain publishes: one per component, two (MX and SPF) for the return path; a
 * rotation adds DKIM records of both kinds (docs/api-decisions.md, "DKIM keys").
 */
export const DNS_PURPOSES = ['ownership', 'dkim', 'dkim_ed25519', 'dmarc', 'return_path_mx', 'return_path_spf', 'receiving_mx', 'tracking_cname'] as const;
export type DnsPurpose = (typeof DNS_PURPOSES)[number];

export interface DnsRecordInstruction {
  purpose: DnsPurpose;
  type: 'TXT' | 'MX' | 'CNAME';
  name: string;
  /** For MX: `<preference> <host>`; for CNAME: the host named. */
  value: string;
  /** DKIM records only: where the key is in its life (dkimKeyState). */
  state?: DkimKeyState;
  /** Retiring DKIM records only: when the record becomes safe to remove (RFC 3339). */
  retiring_until?: string;
}

/** A DKIM key as GET /dns lists it: its record, and where the key is in its life. */
export interface PublishedDkimKey {
  algorithm: DkimAlgorithm;
  selector: string;
  /** The record's `p=`. */
  publicKey: string;
  state: DkimKeyState;
  /** When a newer key took over: set for retiring and retired keys. */
  supersededAt: Date | null;
}

/**
 * How the service's return path is published: the host label and what its MX and SPF records
 * name; and the host the tracking hosts' CNAMEs name (TRACKING_HOST; docs/api-decisions.md,
 * "Opens and clicks").
 */
export interface ReturnPathSettings extends SpfSources {
  label: string;
  trackingHost: string;
}

export interface DomainDnsIdentity {
  name: string;
  ownershipToken: string;
  dkimSelector: string;
  /** Base64 DER SubjectPublicKeyInfo. */
  dkimPublicKey: string;
  /** Inbound mail on: an MX record at the receiving host (receivingHost) names INBOUND_HOST. */
  receivingEnabled?: boolean;
  receivingSubdomain?: string | null;
  /** Opens or clicks tracked: a CNAME at the tracking host (trackingHost) names TRACKING_HOST. */
  trackingOpens?: boolean;
  trackingClicks?: boolean;
  trackingSubdomain?: string;
}

/** The tracking host of a domain: `<subdomain>.<domain>` (docs/api-decisions.md, "Opens and clicks"). */
export const trackingHost = (domain: { name: string; trackingSubdomain?: string }): string => `${domain.trackingSubdomain ?? DEFAULT_TRACKING_SUBDOMAIN}.${domain.name}`;
export const DEFAULT_TRACKING_SUBDOMAIN = 'track';
/** Whether the domain publishes and checks a tracking host: opens or clicks are tracked. */
export const tracksAnything = (domain: { trackingOpens?: boolean; trackingClicks?: boolean }): boolean => Boolean(domain.trackingOpens || domain.trackingClicks);

/** The policy we offer: monitoring only, so publishing it never makes receivers reject mail. */
export const RECOMMENDED_DMARC_RECORD = 'v=DMARC1; p=none;';

const OWNERSHIP_TOKEN_PREFIX = 'mailer-verify=';

/** 32 base62 characters (about 190 bits) after a prefix that says what the record is for. */
export function newOwnershipToken(): string {
  return `${OWNERSHIP_TOKEN_PREFIX}${randomBase62(32)}`;
}

export const ownershipRecordName = (domain: string) => `_mailer-verify.${domain}`;
export const dkimRecordName = (domain: string, selector: string) => `${selector}._domainkey.${domain}`;
export const dmarcRecordName = (domain: string) => `_dmarc.${domain}`;
export const dkimRecordValue = (publicKey: string, algorithm: DkimAlgorithm = 'rsa') => `v=DKIM1; k=${algorithm}; p=${publicKey}`;

function dkimRecord(domain: string, key: PublishedDkimKey): DnsRecordInstruction {
  return {
    purpose: key.algorithm === 'rsa' ? 'dkim' : 'dkim_ed25519',
    type: 'TXT',
    name: dkimRecordName(domain, key.selector),
    value: dkimRecordValue(key.publicKey, key.algorithm),
    state: key.state,
    ...(key.state === 'retiring' && key.supersededAt ? { retiring_until: retiringUntil(key.supersededAt).toISOString() } : {}),
  };
}

/**
 * The records to publish: the domain's active RSA key first (the record readiness needs), then
 * `dkimKeys`, its other DKIM keys (the active Ed25519 key, pending, retiring and retired ones).
 */
export function requiredDnsRecords(domain: DomainDnsIdentity, returnPath: ReturnPathSettings, dkimKeys: readonly PublishedDkimKey[] = []): DnsRecordInstruction[] {
  const host = returnPathHost(domain.name, returnPath.label);
  const activeRsa: PublishedDkimKey = { algorithm: 'rsa', selector: domain.dkimSelector, publicKey: domain.dkimPublicKey, state: 'active', supersededAt: null };
  return [
    { purpose: 'ownership', type: 'TXT', name: ownershipRecordName(domain.name), value: domain.ownershipToken },
    ...[activeRsa, ...dkimKeys].map((key) => dkimRecord(domain.name, key)),
    { purpose: 'dmarc', type: 'TXT', name: dmarcRecordName(domain.name), value: RECOMMENDED_DMARC_RECORD },
    { purpose: 'return_path_mx', type: 'MX', name: host, value: `10 ${returnPath.inboundHost}` },
    { purpose: 'return_path_spf', type: 'TXT', name: host, value: returnPathSpfRecord(returnPath) },
    ...(domain.receivingEnabled
      ? [{ purpose: 'receiving_mx' as const, type: 'MX' as const, name: receivingHost({ name: domain.name, receivingSubdomain: domain.receivingSubdomain ?? null }), value: `10 ${returnPath.inboundHost}` }]
      : []),
    ...(tracksAnything(domain) ? [{ purpose: 'tracking_cname' as const, type: 'CNAME' as const, name: trackingHost(domain), value: returnPath.trackingHost }] : []),
  ];
}
