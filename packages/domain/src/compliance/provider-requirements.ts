/**
 * The mailbox providers whose published sender requirements a domain is judged against
 * (docs/api-decisions.md, "Mailbox providers' rules"). The names are those of the shipped
 * provider table (`packages/config/providers.json`), so that attempts to a provider's MX hosts
 * are found by `providerFor`.
 */
export const MAILBOX_PROVIDERS = ['gmail', 'yahoo', 'microsoft'] as const;
export type MailboxProvider = (typeof MAILBOX_PROVIDERS)[number];

/** Each requirement a provider may publish, in the order a report lists them. */
export const COMPLIANCE_REQUIREMENTS = [
  'spf_aligned',
  'dkim_aligned',
  'dmarc_published',
  'forward_confirmed_reverse_dns',
  'tls',
  'one_click_unsubscribe',
  'complaint_rate',
] as const;
export type ComplianceRequirement = (typeof COMPLIANCE_REQUIREMENTS)[number];

export const COMPLIANCE_STATUSES = ['pass', 'fail', 'unknown'] as const;
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];

export interface ProviderRules {
  /** Shown in reasons. */
  label: string;
  requirements: readonly ComplianceRequirement[];
  /**
   * Complaints over accepted deliveries, as fractions: a rate above `keepBelow` fails, and so
   * does one reaching `neverReach`.
   */
  complaintRate: { keepBelow: number; neverReach: number };
}

const ALL: readonly ComplianceRequirement[] = COMPLIANCE_REQUIREMENTS;

/**
 * What each provider publishes: Gmail and Yahoo (February 2024) all of them, Yahoo naming
 * 0.3 % as its complaint threshold; Microsoft (May 2025) SPF, DKIM, DMARC, one-click
 * unsubscribe and a low complaint rate, for which it names no figure of its own: Gmail's are used.
 */
export const PROVIDER_REQUIREMENTS: Readonly<Record<MailboxProvider, ProviderRules>> = {
  gmail: { label: 'Gmail', requirements: ALL, complaintRate: { keepBelow: 0.001, neverReach: 0.003 } },
  yahoo: { label: 'Yahoo', requirements: ALL, complaintRate: { keepBelow: 0.003, neverReach: 0.003 } },
  microsoft: {
    label: 'Microsoft',
    requirements: ['spf_aligned', 'dkim_aligned', 'dmarc_published', 'one_click_unsubscribe', 'complaint_rate'],
    complaintRate: { keepBelow: 0.001, neverReach: 0.003 },
  },
};
