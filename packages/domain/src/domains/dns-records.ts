import { randomBase62 } from '../ids';

/** The three records a domain publishes before it may send (docs/api-decisions.md, "Domains"). */
export const DNS_PURPOSES = ['ownership', 'dkim', 'dmarc'] as const;
export type DnsPurpose = (typeof DNS_PURPOSES)[number];

export interface DnsRecordInstruction {
  purpose: DnsPurpose;
  type: 'TXT';
  name: string;
  value: string;
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

export function requiredDnsRecords(domain: DomainDnsIdentity): DnsRecordInstruction[] {
  return [
    { purpose: 'ownership', type: 'TXT', name: ownershipRecordName(domain.name), value: domain.ownershipToken },
    { purpose: 'dkim', type: 'TXT', name: dkimRecordName(domain.name, domain.dkimSelector), value: dkimRecordValue(domain.dkimPublicKey) },
    { purpose: 'dmarc', type: 'TXT', name: dmarcRecordName(domain.name), value: RECOMMENDED_DMARC_RECORD },
  ];
}
