/** The message limits (docs/api-decisions.md, "Emails"). */
export const KIB = 1024;
export const MIB = 1024 * KIB;

export const MAX_UNIQUE_RECIPIENTS = 50;
export const MAX_REPLY_TO = 50;
export const SUBJECT_MAX_CHARS = 998;
export const PLAIN_MAX_BYTES = 256 * KIB;
export const HTML_MAX_BYTES = 1 * MIB;
export const MAX_ATTACHMENTS = 20;
export const ATTACHMENT_MAX_BYTES = 8 * MIB;
export const ATTACHMENTS_TOTAL_MAX_BYTES = 10 * MIB;
export const FILENAME_MAX_CHARS = 255;
export const CONTENT_ID_MAX_CHARS = 255;
/** The final RFC 5322 message as built for delivery (before DKIM signing). */
export const MIME_MAX_BYTES = 15 * MIB;

/**
 * A message's stream (docs/api-decisions.md, "Streams"): transactional mail (receipts, resets)
 * and broadcast mail (announcements, digests) are kept apart, each with its own suppressions,
 * so that an unsubscribe from or a complaint about one never stops the other.
 */
export const EMAIL_TYPES = ['transactional', 'broadcast'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** Unicode scalar values, the unit every length "in characters" is measured in (docs/api-decisions.md, "Conventions"). */
export function scalarLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
