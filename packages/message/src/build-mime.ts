import MailComposer from 'nodemailer/lib/mail-composer';

export interface OutgoingAttachment {
  filename: string;
  contentType: string;
  /** Present for inline parts, referenced from the HTML as `cid:<contentId>`. */
  contentId?: string | null;
  content: Buffer;
}

/**
 * What the message says, independent of who it is delivered to: BCC recipients are not
 * part of it (they are only RCPT TO), so the same bytes serve every recipient domain.
 */
export interface OutgoingMessage {
  from: { address: string; name?: string | null };
  to: string[];
  cc: string[];
  subject: string;
  text?: string | null;
  html?: string | null;
  attachments: OutgoingAttachment[];
  /** RFC 5322 Message-ID including angle brackets, fixed at acceptance. */
  messageId: string;
  date: Date;
}

/** The RFC 5322 message as sent (before DKIM signing). The API measures this same output against the 15 MiB limit. */
export function buildMime(message: OutgoingMessage): Promise<Buffer> {
  const composer = new MailComposer({
    from: message.from.name ? { name: message.from.name, address: message.from.address } : message.from.address,
    to: message.to,
    cc: message.cc.length > 0 ? message.cc : undefined,
    subject: message.subject,
    text: message.text ?? undefined,
    html: message.html ?? undefined,
    messageId: message.messageId,
    date: message.date,
    attachments: message.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId, contentDisposition: 'inline' } : {}),
    })),
  });
  return composer.compile().build();
}
