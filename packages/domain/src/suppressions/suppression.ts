import type { DeliveryCause } from '../delivery/causes';
import type { EmailType } from '../emails/email-limits';

/** Why an address is on an account's suppression list (docs/api-decisions.md, "Suppressions"). */
export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'manual', 'unsubscribed'] as const;
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

/**
 * The stream an entry a delivery adds suppresses (docs/api-decisions.md, "Streams"): a hard
 * bounce says the address takes no mail at all, so it holds for every stream (null); a
 * complaint, or an unsubscribe, is about the mail of the message's own stream only.
 */
export const suppressedStream = (reason: SuppressionReason, messageStream: EmailType): EmailType | null => (reason === 'hard_bounce' ? null : messageStream);

/** Whether an entry for `entryStream` (null: every stream) holds for a message of `stream`. */
export const suppressesStream = (entryStream: EmailType | null, stream: EmailType): boolean => entryStream === null || entryStream === stream;
