import type { HostTlsPolicy } from './tls-policy';
import { sessionMeetsPolicy } from './tls-policy';

/**
 * The result types of RFC 8460 section 4.3 that a sending MTA can observe in one session
 * (docs/api-decisions.md, "Receivers' TLS policies"): what the attempts record and the daily
 * TLS reports count.
 */
export const TLS_FAILURE_TYPES = [
  'starttls-not-supported',
  'certificate-host-mismatch',
  'certificate-expired',
  'certificate-not-trusted',
  'validation-failure',
] as const;
export type TlsFailureType = (typeof TLS_FAILURE_TYPES)[number];

/** How an attempt's session fared under its TLS policy, as the attempt records it. */
export const TLS_RESULTS = ['success', ...TLS_FAILURE_TYPES] as const;
export type TlsResult = (typeof TLS_RESULTS)[number];

/** What one session (or a refused attempt at one) showed of TLS. */
export interface TlsObservation {
  /** The session's TLS; null in clear or when no session met the policy. */
  tls: { version: string; verified: boolean } | null;
  /** Why a TLS negotiation failed (node's message for the handshake or certificate check), if one did. */
  tlsFailure?: string;
}

/**
 * The RFC 8460 result of a session under its host's policy: null when the session met it, else
 * the failure type. A host outside an MTA-STS policy, a TLS version below 1.2, a certificate
 * matching no TLSA record, and anything not named more precisely are `validation-failure`.
 */
export function tlsFailureType(policy: HostTlsPolicy, observed: TlsObservation): TlsFailureType | null {
  if (sessionMeetsPolicy(policy, observed.tls)) return null;
  if (!policy.hostAllowed) return 'validation-failure';
  const reason = observed.tlsFailure ?? '';
  if (/expired/i.test(reason)) return 'certificate-expired';
  if (/altnames|hostname/i.test(reason)) return 'certificate-host-mismatch';
  if (/self[- ]signed|unable to (verify|get local issuer)|untrusted/i.test(reason)) return 'certificate-not-trusted';
  if (!observed.tls && (!reason || /no TLS|STARTTLS/i.test(reason))) return 'starttls-not-supported';
  return 'validation-failure';
}
