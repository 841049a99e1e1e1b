import type { Transform } from 'node:stream';
import * as base64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import { addExtraHeaders, composerAttachment, crlf, foldFilenames, foldSubject, plainAlternative } from './wire-safe';

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
  /** Addresses of the Reply-To header; none or empty: no header. */
  replyTo?: string[];
  /** Extra header fields as intake checked them (checkExtraHeaders in @mailer/domain). */
  headers?: { name: string; value: string }[];
  /** RFC 5322 Message-ID including angle brackets, fixed at acceptance. */
  messageId: string;
  date: Date;
}

/**
 * The To of a message whose recipients are all BCC: the empty group (RFC 5322 3.4) Postfix and
 * mail clients write, which the composer's header builder writes with its name quoted
 * (`"undisclosed-recipients":;`, the same group).
 */
const UNDISCLOSED_RECIPIENTS = 'undisclosed-recipients:;';

/**
 * The RFC 5322 message as sent (before DKIM signing). The API measures this same output
 * against the 15 MiB limit.
 *
 * nodemailer's mail composer makes the MIME tree: structure, headers, boundaries and each
 * part's transfer encoding. Its `build()` then streams the tree out through a pipeline of
 * streams per part, with timer hops between stages, which cost more CPU than the encoding
 * itself on a one-part 4 KB message. Here the contents are strings and buffers already in
 * memory, so the tree is written out directly, with nodemailer's own header builder and
 * encoders: the same bytes (tests compare them with `build()`) in about half the time, except
 * that a text attachment's lone CR or LF is encoded as data (`build()` leaves it a line break).
 */
export function buildMime(message: OutgoingMessage): Buffer {
  return writeMime(mimeTree(message));
}

/**
 * The composer's MIME tree of the message, with line breaks, header folding, attachment
 * encodings and the text alternative of HTML-only messages as wire-safe.ts describes.
 */
export function mimeTree(message: OutgoingMessage): MimeNode {
  const root = new MailComposer({
    from: message.from.name ? { name: message.from.name, address: message.from.address } : message.from.address,
    to: message.to,
    cc: message.cc.length > 0 ? message.cc : undefined,
    replyTo: message.replyTo?.length ? message.replyTo : undefined,
    subject: message.subject,
    text: message.text ? crlf(message.text) : message.html ? plainAlternative(message.html) : undefined,
    html: message.html ? crlf(message.html) : undefined,
    messageId: message.messageId,
    date: message.date,
    attachments: message.attachments.map((a) => ({
      filename: a.filename,
      ...composerAttachment(a),
      ...(a.contentId ? { cid: a.contentId, contentDisposition: 'inline' } : {}),
    })),
  }).compile();
  // Every recipient BCC (only SMTP submission takes such a message): the usual empty group, so that the message has a To.
  if (message.to.length === 0 && message.cc.length === 0) root.setHeader('To', UNDISCLOSED_RECIPIENTS);
  foldSubject(root, message.subject);
  addExtraHeaders(root, message.headers ?? []);
  foldFilenames(root);
  return root;
}

/**
 * The tree's bytes, as its `build()` streams them. The composer is given no raw source, stream
 * transforms or newline conversion, so the headers, contents and boundaries are all there is.
 */
export function writeMime(root: MimeNode): Buffer {
  const parts: Buffer[] = [];
  writeNode(root, parts);
  return Buffer.concat([...parts, lastLineBreak(parts)]);
}

/** One node as `MimeNode#stream` writes it: headers, encoded content, then its children between boundaries. */
function writeNode(node: MimeNode, parts: Buffer[]): void {
  // The headers first: building them settles the transfer encoding, the multipart kind and the boundary.
  parts.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`));
  if (node.content) parts.push(encodeContent(node));
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    parts.push(Buffer.from(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`));
    writeNode(child, parts);
  });
  parts.push(Buffer.from(`\r\n--${node.boundary}--\r\n`));
}

function encodeContent(node: MimeNode): Buffer {
  const { content } = node;
  if (typeof content !== 'string' && !Buffer.isBuffer(content)) throw new TypeError('MIME parts are built from strings and buffers only');
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  switch (node.getTransferEncoding()) {
    case 'quoted-printable':
      // A lone CR or LF is data, and is encoded: the message's text parts have none (crlf), and a text
      // attachment's are its own bytes. MimeNode#stream encodes them outside text only, and would
      // send those of a text attachment as line breaks.
      return encodeWhole(new qp.Encoder({ binary: true }), bytes);
    case 'base64':
      return encodeWhole(new base64.Encoder(), bytes);
    default:
      return bytes;
  }
}

/**
 * The content through one of nodemailer's encoder streams, given all at once: the two calls a
 * pipeline makes (its transform on the one chunk a string or buffer source gives, then its
 * flush), without the pipeline. Its line wrapping depends on how the input arrives (trailing
 * whitespace is held back, and a short last line is not wrapped again), so the encoder itself
 * is run rather than its `encode`/`wrap` functions on the whole text.
 */
function encodeWhole(encoder: Transform, bytes: Buffer): Buffer {
  let failure: Error | null | undefined;
  // 'buffer' is what a stream hands a transform for a Buffer chunk (Node's types list only string encodings).
  encoder._transform(bytes, 'buffer' as BufferEncoding, (error) => (failure = error));
  encoder._flush((error) => (failure ??= error));
  if (failure) throw failure;
  return (encoder.read() as Buffer | null) ?? Buffer.alloc(0);
}

/** nodemailer ends every message with a line break, completing a final CR when there is one. */
function lastLineBreak(parts: Buffer[]): Buffer {
  const last = parts.findLast((part) => part.length > 0);
  const byte = last?.[last.length - 1];
  return Buffer.from(byte === 0x0a ? '' : byte === 0x0d ? '\n' : '\r\n');
}
