import { randomBase62 } from '../ids';
import { returnPathHost } from '../return-path/return-path';
import { returnPathSpfRecord, type SpfSources } from '../return-path/return-path-records';

/**
 * The components a DNS check judges (docs/api-decisions.md, "Domains"): the first three make a
 * domain ready to send; `return_path` only decides the envelope sender.
 */
export const DNS_COMPONENTS = ['ownership', 'dkim', 'dmarc', 'return_path'] as const;
export type DnsComponent = (typeof DNS_COMPONENTS)[number];

/** The records a domain publishes: one per component, two (MX and SPF) for the return path. */
export const DNS_PURPOSES = ['ownership', 'dkim', 'dmarc', 'return_path_mx', 'return_path_spf'] as const;
export type DnsPurpose = (typeof DNS_PURPOSES)[number];

export interface DnsRecordInstruction {
  purpose: DnsPurpose;
  type: 'TXT' | 'MX';
  name: string;
  /** For MX: `<preference> <host>`. */
  value: string;
}

/** How the service's return path is published: the host label and what its MX and SPF records name. */
export interface ReturnPathSettings extends SpfSources {
  label: string;
}

export interface DomainDnsIdentity {
  name: string;
  ownershipToken: string;
  dkimSelector: string;
  /** Base64 DER SubjectPublicKeyInfo. */
  dkimPublicKey: string;
}

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
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;

export function requiredDnsRecords(domain: DomainDnsIdentity, returnPath: ReturnPathSettings): DnsRecordInstruction[] {
  const host = returnPathHost(domain.name, returnPath.label);
  return [
    { purpose: 'ownership', type: 'TXT', name: ownershipRecordName(domain.name), value: domain.ownershipToken },
    { purpose: 'dkim', type: 'TXT', name: dkimRecordName(domain.name, domain.dkimSelector), value: dkimRecordValue(domain.dkimPublicKey) },
    { purpose: 'dmarc', type: 'TXT', name: dmarcRecordName(domain.name), value: RECOMMENDED_DMARC_RECORD },
    { purpose: 'return_path_mx', type: 'MX', name: host, value: `10 ${returnPath.inboundHost}` },
    { purpose: 'return_path_spf', type: 'TXT', name: host, value: returnPathSpfRecord(returnPath) },
  ];
}
