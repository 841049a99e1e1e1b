import type { TlsPolicyApplied, TransportSecurityPolicy } from '../senders/transport-security';
import type { CauseCode } from './causes';

/** The modes of an MTA-STS policy (RFC 8461 section 3.2). */
export const MTA_STS_MODES = ['enforce', 'testing', 'none'] as const;
export type MtaStsMode = (typeof MTA_STS_MODES)[number];

/** The longest a fetched MTA-STS policy is kept, whatever its `max_age` says (RFC 8461 section 3.2). */
export const MTA_STS_MAX_AGE_SECONDS = 31_557_600;

/** What is known of one MX host before connecting to it (docs/api-decisions.md, "Receivers' TLS policies"). */
export interface HostPolicyInputs {
  /** The sender's transport security setting. */
  sender: TransportSecurityPolicy;
  /** The recipient domain's MTA-STS mode and whether this host matches one of its `mx` patterns; null without a policy. */
  mtaSts: { mode: MtaStsMode; mxMatches: boolean } | null;
  /**
   * DANE for this host (only with DNSSEC_VALIDATING_RESOLVER): `secure` when its MX and its
   * usable TLSA records were authenticated (AD bit), `lookup_failed` when the MX was
   * authenticated but the TLSA lookup failed; null otherwise.
   */
  dane: 'secure' | 'lookup_failed' | null;
}

/** The TLS demands on one MX host: the strictest of the sender's setting and the recipient domain's policy. */
export interface HostTlsPolicy {
  /** Recorded with the attempt for operators (section 16 of the contract). */
  applied: TlsPolicyApplied;
  /**
   * Whether the demands are enforced: a host the policy does not allow is not connected to,
   * and a session without TLS 1.2+ and a certificate valid for the MX name is not used (not a
   * byte of the message in clear). Otherwise a shortfall is only counted.
   */
  enforced: boolean;
  /** The cause of an enforced policy that no host could meet. */
  failureCause: Extract<CauseCode, 'tls_required_unavailable' | 'tls_policy_failed' | 'dns_temporary_failure'> | null;
  /** Whether the policy allows this host (MTA-STS `mx` patterns). */
  hostAllowed: boolean;
  /** Whether the policy asks for TLS 1.2+ and an authenticated certificate (valid for the MX name, or matching the TLSA records under DANE). */
  requiresVerifiedTls: boolean;
}

/**
 * DANE first (RFC 8461 section 2: it takes precedence over MTA-STS for a host with secure TLSA
 * records, whose certificate it authenticates; a host whose TLSA lookup failed is not used,
 * RFC 7672 section 2.2), then MTA-STS `enforce` (it also limits the hosts), then the sender's
 * `require_tls`, then MTA-STS `testing` (as opportunistic delivery, its shortfalls counted),
 * then opportunistic TLS. A policy in mode `none` is no policy.
 */
export function decideHostTlsPolicy({ sender, mtaSts, dane }: HostPolicyInputs): HostTlsPolicy {
  if (dane === 'secure') return { applied: 'dane', enforced: true, failureCause: 'tls_policy_failed', hostAllowed: true, requiresVerifiedTls: true };
  if (dane === 'lookup_failed') return { applied: 'dane', enforced: true, failureCause: 'dns_temporary_failure', hostAllowed: false, requiresVerifiedTls: true };
  if (mtaSts?.mode === 'enforce') {
    return { applied: 'mta-sts', enforced: true, failureCause: 'tls_policy_failed', hostAllowed: mtaSts.mxMatches, requiresVerifiedTls: true };
  }
  if (sender === 'require_tls') {
    return { applied: 'require_tls', enforced: true, failureCause: 'tls_required_unavailable', hostAllowed: true, requiresVerifiedTls: true };
  }
  if (mtaSts?.mode === 'testing') {
    return { applied: 'mta-sts', enforced: false, failureCause: null, hostAllowed: mtaSts.mxMatches, requiresVerifiedTls: true };
  }
  return { applied: 'opportunistic', enforced: false, failureCause: null, hostAllowed: true, requiresVerifiedTls: false };
}

/** TLS 1.2 or later, as MTA-STS and `require_tls` demand. */
export function isModernTls(version: string): boolean {
  return version === 'TLSv1.2' || version === 'TLSv1.3';
}

/**
 * Whether a session met its host's policy, as counted per policy in `/metrics` and the TLS
 * reports: a host the policy allows, over TLS, and (when asked) TLS 1.2+ with a certificate
 * valid for the MX name. `tls` is null for a session in clear.
 */
export function sessionMeetsPolicy(policy: HostTlsPolicy, tls: { version: string; verified: boolean } | null): boolean {
  if (!policy.hostAllowed || !tls) return false;
  return !policy.requiresVerifiedTls || (tls.verified && isModernTls(tls.version));
}
