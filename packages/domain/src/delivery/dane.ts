import { createHash } from 'node:crypto';

/** A TLSA record (RFC 6698 section 2.1) of `_25._tcp.<mx host>`. */
export interface TlsaRecord {
  usage: number;
  selector: number;
  matchingType: number;
  data: Buffer;
}

/** A certificate as presented in the TLS handshake: its DER encoding and its SubjectPublicKeyInfo's. */
export interface PresentedCertificate {
  der: Buffer;
  spki: Buffer;
}

/** DANE-TA (2) and DANE-EE (3) are the usages SMTP uses (RFC 7672 section 3.1); selectors 0/1, matching types 0/1/2. */
const USAGE_DANE_TA = 2;
const USAGE_DANE_EE = 3;

/** The records a DANE client can use (RFC 7672 section 3.1); others are ignored. */
export function usableTlsaRecords(records: readonly TlsaRecord[]): TlsaRecord[] {
  return records.filter((r) => (r.usage === USAGE_DANE_TA || r.usage === USAGE_DANE_EE) && (r.selector === 0 || r.selector === 1) && r.matchingType <= 2);
}

function matches(record: TlsaRecord, certificate: PresentedCertificate): boolean {
  const content = record.selector === 0 ? certificate.der : certificate.spki;
  const digest = record.matchingType === 0 ? content : createHash(record.matchingType === 1 ? 'sha256' : 'sha512').update(content).digest();
  return digest.equals(record.data);
}

/**
 * Whether the server's certificate is authenticated by the TLSA records (RFC 7672 section 3.1):
 * DANE-EE by the leaf alone (neither its names nor its dates are checked); DANE-TA by a
 * certificate the leaf chains up to (`issuers`, each signature already checked, nearest
 * first) with the leaf valid for the MX host name (`leafNameValid`).
 */
export function daneAuthenticates(
  records: readonly TlsaRecord[],
  presented: { leaf: PresentedCertificate; issuers: readonly PresentedCertificate[]; leafNameValid: boolean },
): boolean {
  const usable = usableTlsaRecords(records);
  if (usable.some((r) => r.usage === USAGE_DANE_EE && matches(r, presented.leaf))) return true;
  if (!presented.leafNameValid) return false;
  return usable.some((r) => r.usage === USAGE_DANE_TA && presented.issuers.some((issuer) => matches(r, issuer)));
}
