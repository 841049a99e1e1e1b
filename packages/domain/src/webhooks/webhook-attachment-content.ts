import type { InboundAttachmentMeta } from '../inbound/inbound-message';

/**
 * The decoded attachment bytes one `email.received` payload carries at most (docs/api-decisions.md,
 * "Inbound mail"): the send API's attachment total, so that the body (base64 of these, about 13.4 MiB, with
 * the message's text) stays near what the API itself accepts and one daemon's WEBHOOK_CONCURRENCY
 * requests hold a bounded amount.
 */
export const WEBHOOK_ATTACHMENT_CONTENT_BYTES = 10 * 1024 * 1024;

/**
 * The attachments whose bytes a payload carries: in the message's order, each whose decoded size fits
 * in what the ones taken before it left of WEBHOOK_ATTACHMENT_CONTENT_BYTES; the others go without.
 * Read from the message as recorded at its arrival, so every retry takes the same ones.
 */
export function attachmentsWithContent(attachments: readonly InboundAttachmentMeta[]): InboundAttachmentMeta[] {
  let left = WEBHOOK_ATTACHMENT_CONTENT_BYTES;
  return attachments.filter((a) => {
    if (a.size > left) return false;
    left -= a.size;
    return true;
  });
}
