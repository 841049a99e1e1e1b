import type { DeliveryCause } from '../delivery/causes';

/** Why an address is on an account's suppression list (docs/api-decisions.md, "Suppressions"). */
export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** Bounce causes that say the address will never take mail: the recipient is suppressed. */
const HARD_BOUNCE_CAUSES: ReadonlySet<string> = new Set(['recipient_unknown', 'mailbox_disabled', 'recipient_domain_not_found', 'no_mail_server']);

/** Whether a delivery status and cause are a hard bounce: the address will never take mail (also what reputation counts). */
export const isHardBounce = (delivery: { status: string; cause: DeliveryCause | null }): boolean =>
  delivery.status === 'bounced' && delivery.cause !== null && HARD_BOUNCE_CAUSES.has(delivery.cause.code);

/**
 * Whether a delivery's outcome suppresses its recipient: a to/cc delivery that bounced for
 * a hard cause. A BCC delivery never does, since the entry would reveal the address.
 */
export function suppressesRecipient(delivery: { kind: 'to' | 'cc' | 'bcc'; status: string; cause: DeliveryCause | null }): boolean {
  return delivery.kind !== 'bcc' && isHardBounce(delivery);
}

/** The cause of a delivery created for a suppressed recipient. */
export const SUPPRESSED: DeliveryCause = { code: 'recipient_suppressed', permanent: true, smtp_code: null, enhanced_status: null };
