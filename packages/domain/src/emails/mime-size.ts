import { MIME_MAX_BYTES } from './email-limits';

export interface MimeSizeInput {
  fromAddress: string;
  /** The longest display name the From header may get (the request's, or the sender's). */
  displayNameBytes: number;
  subject: string;
  to: readonly string[];
  cc: readonly string[];
  /** Reply-To addresses and extra header fields, counted like the other headers. */
  replyTo?: readonly string[];
  extraHeaders?: readonly { name: string; value: string }[];
  text: string | null;
  html: string | null;
  attachments: readonly { filename: string; contentType: string; contentId: string | null; size: number }[];
}

// Date, Message-ID, MIME-Version, boundaries and the multipart skeleton.
const FIXED_OVERHEAD = 4096;
// Part headers of one attachment besides its RFC 2231-encoded filename.
const PART_OVERHEAD = 512;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * A safe upper bound of the built MIME message's size, so that the exact build (which
 * costs a full encode) is needed only when this bound passes the limit. Worst cases:
 * headers as RFC 2047 words (4 bytes per byte covers Q and B encodings with folding),
 * text parts and text/* attachments as quoted-printable (`=XX` for every byte plus a soft
 * break per 75 characters; a line break grows to CRLF at most), other attachments as base64
 * in 76-character lines, filenames RFC 2231-encoded. An HTML-only message gets a text/plain
 * alternative of at most the HTML's bytes.
 */
export function mimeSizeUpperBound(message: MimeSizeInput): number {
  const addresses = [message.fromAddress, ...message.to, ...message.cc, ...(message.replyTo ?? [])].reduce((sum, a) => sum + a.length + 4, 0);
  const extra = (message.extraHeaders ?? []).reduce((sum, h) => sum + h.name.length + 4 * utf8(h.value), 0);
  const headers = FIXED_OVERHEAD + 2 * addresses + 4 * (utf8(message.subject) + message.displayNameBytes) + extra;
  const quotedPrintable = (bytes: number) => Math.ceil(bytes * 3 * (78 / 75));
  const textPart = (text: string | null) => (text === null ? 0 : quotedPrintable(utf8(text)) + PART_OVERHEAD);
  const attachments = message.attachments.reduce(
    (sum, a) =>
      sum +
      (/^text\//i.test(a.contentType) ? quotedPrintable(a.size) : Math.ceil((Math.ceil(a.size / 3) * 4 * 78) / 76)) +
      PART_OVERHEAD +
      9 * utf8(a.filename) +
      a.contentType.length +
      (a.contentId?.length ?? 0),
    0,
  );
  return headers + textPart(message.text || message.html) + textPart(message.html) + attachments;
}

/** Whether the exact size must be measured: only when the bound could pass the limit. */
export function mimeSizeNeedsMeasuring(message: MimeSizeInput): boolean {
  return mimeSizeUpperBound(message) > MIME_MAX_BYTES;
}
