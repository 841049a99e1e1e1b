/**
 * How the delivery daemon treats TLS for a sender's messages (docs/api-decisions.md, "Delivery"):
 * `opportunistic` uses STARTTLS when offered; `require_tls` never sends in clear.
 */
export const TRANSPORT_SECURITY_POLICIES = ['require_tls', 'opportunistic'] as const;
export type TransportSecurityPolicy = (typeof TRANSPORT_SECURITY_POLICIES)[number];
export const DEFAULT_TRANSPORT_SECURITY_POLICY: TransportSecurityPolicy = 'opportunistic';
