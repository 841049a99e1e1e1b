/**
 * How the delivery daemon treats TLS for a sender's messages (docs/api-decisions.md, "Delivery"):
 * `opportunistic` uses STARTTLS when offered; `require_tls` never sends in clear.
 */
export const TRANSPORT_SECURITY_POLICIES = ['require_tls', 'opportunistic'] as const;
export type TransportSecurityPolicy = (typeof TRANSPORT_SECURITY_POLICIES)[number];
export const DEFAULT_TRANSPORT_SECURITY_POLICY: TransportSecurityPolicy = 'opportunistic';

/**
 * The TLS policy that applied to one attempt, recorded for operators (docs/api-decisions.md,
 * "Delivery", Attempts): `none` when the message never reached a session.
 */
export const TLS_POLICIES_APPLIED = ['none', 'opportunistic', 'require_tls', 'mta-sts', 'dane'] as const;
export type TlsPolicyApplied = (typeof TLS_POLICIES_APPLIED)[number];
