import { X509Certificate } from 'node:crypto';
import { checkServerIdentity, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import { usableTlsaRecords, type PresentedCertificate, type TlsaRecord } from '@mailer/domain';
import type { RouteLookups } from './route-cache';

/** DANE for one MX host (RFC 7672 section 2.2): its usable TLSA records when authenticated, or why not. */
export type HostDane = { kind: 'secure'; records: TlsaRecord[] } | { kind: 'lookup_failed' } | { kind: 'none' };

const NONE: HostDane = { kind: 'none' };

/**
 * DANE applies to an MX host only when the domain's MX records and the host's TLSA records
 * both come with the AD bit of a validating resolver (DNSSEC_VALIDATING_RESOLVER) and some TLSA
 * record is usable. A TLSA lookup that fails under an authenticated MX leaves the host unusable
 * (a downgrade could hide behind it); with no usable record the host is treated as without DANE.
 */
export async function hostDane(routes: RouteLookups, domain: string, host: string, signal?: AbortSignal): Promise<HostDane> {
  if (!routes.authenticated) return NONE;
  const mx = await routes.authenticated.mx(domain, signal);
  if (mx.kind !== 'found' || !mx.secure) return NONE;
  const tlsa = await routes.authenticated.tlsa(host, signal);
  if (tlsa.kind === 'temporary') return { kind: 'lookup_failed' };
  if (tlsa.kind !== 'found' || !tlsa.secure) return NONE;
  const records = usableTlsaRecords(tlsa.values);
  return records.length > 0 ? { kind: 'secure', records } : NONE;
}

const presented = (certificate: X509Certificate): PresentedCertificate => ({
  der: certificate.raw,
  spki: certificate.publicKey.export({ type: 'spki', format: 'der' }),
});

/**
 * The server's certificate as daneAuthenticates needs it: the leaf, the certificates it chains
 * up to (each signature checked here, nearest first), and whether the leaf is valid for the MX
 * host name and today (asked of DANE-TA only).
 */
export function presentedCertificates(socket: TLSSocket, host: string, now: Date) {
  const peer = socket.getPeerCertificate(true) as DetailedPeerCertificate;
  const chain: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  for (let current: DetailedPeerCertificate | undefined = peer; current?.raw && !seen.has(current); current = current.issuerCertificate) {
    seen.add(current);
    chain.push(new X509Certificate(current.raw));
  }
  const leaf = chain[0];
  if (!leaf) return null;
  const issuers: PresentedCertificate[] = [];
  for (let i = 1; i < chain.length && chain[i - 1]!.verify(chain[i]!.publicKey); i++) issuers.push(presented(chain[i]!));
  const current = new Date(leaf.validFrom) <= now && now <= new Date(leaf.validTo);
  return { leaf: presented(leaf), issuers, leafNameValid: current && checkServerIdentity(host, peer) === undefined };
}
