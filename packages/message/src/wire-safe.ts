import { isAscii, isUtf8 } from 'node:buffer';
import { compile } from 'html-to-text';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import type { OutgoingAttachment } from './build-mime';

/*
 * What the composer is handed so that every message goes out as it was signed and as judges
 * want it (docs/api-decisions.md, Delivery: "Message content"): CRLF line breaks only, no header
 * line over 78 octets where a fold can avoid it, no unencoded 8-bit data, a charset on every
 * text part, attachments that decode to their bytes, and a text/plain alternative beside HTML.
 */

/** A CR not followed by LF, or an LF not preceded by CR. */
const BARE_LINE_BREAK = /\r(?!\n)|(?<!\r)\n/;

/**
 * Text with every line break as CRLF. nodemailer writes 7bit and quoted-printable text with
 * its line breaks as they are, while the SMTP data stream sends each bare CR or LF as CRLF and
 * DKIM's relaxed body hash keeps a bare CR: normalized here, the signed bytes are the sent ones.
 * Text that already has only CRLF (or no line break) is returned as it is, without a copy.
 */
export function crlf(text: string): string {
  // Text without a CR (most text: LF-only, or a single line) needs no regular expression, 4x faster.
  if (!text.includes('\r')) return text.includes('\n') ? text.replaceAll('\n', '\r\n') : text;
  return BARE_LINE_BREAK.test(text) ? text.replace(/\r\n?|\n/g, '\r\n') : text;
}

/*
 * html-to-text's parser and formatter take time that grows with the square of the nesting
 * depth: a megabyte of nested <div>s took 20 s and then overflowed the stack, 50 nested
 * <blockquote>s around 200,000 lines 8 s. So it converts at most the first 128 KiB of the HTML
 * (Gmail shows a message's first 102 KB before clipping it) and nothing nested deeper than 64
 * elements (an ellipsis stands for it): under a second for any input, a few milliseconds for
 * the usual message.
 */
const HTML_CONVERTED = 128 * 1024;
const htmlToText = compile({
  // Lines of at most 76 characters, which nodemailer sends as they are (7bit) when ASCII.
  wordwrap: 76,
  limits: { maxDepth: 64 },
});

/**
 * The text/plain alternative of a message given only HTML (SpamAssassin's MIME_HTML_ONLY and
 * rspamd's equivalent score HTML-only mail), never more UTF-8 bytes than the HTML: a `<hr>`
 * becomes a line of dashes and nested lists indent every line, so the text could otherwise
 * outgrow its source, and intake's size bound counts the alternative as large as the HTML.
 */
export function plainAlternative(html: string): string {
  const text = crlf(htmlToText(html.length > HTML_CONVERTED ? html.slice(0, HTML_CONVERTED) : html));
  const limit = Buffer.byteLength(html);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no measuring.
  if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) return text;
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(limit));
  // Not between the CR and LF of a line break.
  return text.slice(0, text[read - 1] === '\r' ? read - 1 : read);
}

/**
 * The longest run without a space that nodemailer's folding (at white space, 76 columns) keeps
 * on one line of at most 78 octets, whatever precedes it (`Subject: `, ` name="`).
 */
const FOLDABLE_RUN = 64;
const UNFOLDABLE = new RegExp(`[^ ]{${FOLDABLE_RUN + 1}}`);
/** nodemailer writes non-ASCII values as encoded words already, which fold. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether nodemailer would write the value with a line it cannot fold to 78 octets. */
const needsEncodedWords = (value: string) => UNFOLDABLE.test(value) && PRINTABLE_ASCII.test(value);

/** RFC 2047 encoded words of at most 52 characters, which nodemailer folds between words. */
const encodedWords = (value: string) => mimeFuncs.encodeWord(value, 'Q', 52);

/**
 * A subject with a run of characters too long to fold (a 998-character word made a 999-octet
 * line) goes out as encoded words, as nodemailer writes any non-ASCII subject.
 */
export function foldSubject(root: MimeNode, subject: string): void {
  if (needsEncodedWords(subject)) root.setHeader('Subject', { prepared: true, foldLines: true, value: encodedWords(subject) });
}

/** The list fields among the extra headers: structured, so never encoded (checkExtraHeaders keeps them foldable ASCII). */
const LIST_FIELDS = new Set(['list-unsubscribe', 'list-unsubscribe-post', 'list-id']);
/** nodemailer writes these as message-id lists (each in angle brackets, space-separated) and folds them. */
const MESSAGE_ID_FIELDS = new Set(['references', 'in-reply-to']);

/**
 * The caller's extra header fields (docs/api-decisions.md, "Send API additions"). List fields
 * are written as given and folded at white space; References and In-Reply-To go through
 * nodemailer's message-id list formatting. `X-…` values are unstructured text: non-ASCII goes out as encoded words (nodemailer's
 * rule), and so does an ASCII run too long to fold, as for the subject.
 */
export function addExtraHeaders(root: MimeNode, headers: readonly { name: string; value: string }[]): void {
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    if (LIST_FIELDS.has(key)) root.setHeader(name, { prepared: true, foldLines: true, value });
    else if (MESSAGE_ID_FIELDS.has(key)) root.setHeader(name, value);
    else if (needsEncodedWords(value)) root.setHeader(name, { prepared: true, foldLines: true, value: encodedWords(value) });
    else root.setHeader(name, value);
  }
}

/**
 * The `name` parameter nodemailer adds to an attachment's Content-Type (beside the RFC 2231
 * `filename` of Content-Disposition, which it splits into continuations) is written as encoded
 * words when the filename is not ASCII, and unfolded otherwise: a 200-character name made a
 * 214-octet line. Such a name is given the encoded words a non-ASCII one gets. nodemailer has
 * no option for it, so the node's own word encoder (`_encodeWords`, which that parameter goes
 * through) is wrapped on that node only, for that value only.
 */
export function foldFilenames(node: MimeNode): void {
  const { filename } = node;
  if (filename && needsEncodedWords(filename)) {
    const own = (node as unknown as WordEncoding)._encodeWords.bind(node);
    Object.assign(node, { _encodeWords: (value: string) => (value === filename ? encodedWords(value) : own(value)) } satisfies WordEncoding);
  }
  node.childNodes.forEach(foldFilenames);
}

/** nodemailer's internal MimeNode method for header text (not in its types). */
interface WordEncoding {
  _encodeWords(value: string): string;
}

/** What the composer gets for one attachment: its content type, transfer encoding and content. */
export interface ComposerAttachment {
  contentType: string;
  contentTransferEncoding?: string | undefined;
  content: Buffer | string;
}

/**
 * - `message/*`: base64. nodemailer labels such content 7bit or 8bit and sends it as it is
 *   (RFC 2046 allows no other encoding), which puts 8-bit data and lines of any length on the
 *   wire of a server that never offered 8BITMIME; base64 is what the API promises instead.
 * - `text/*` in UTF-8 (ASCII included): `charset=utf-8` and its bytes as they are, line breaks
 *   included (docs/api-decisions.md, Delivery: "Message content"); ASCII as quoted-printable
 *   (7bit-safe, and not the base64 of text without 8-bit characters that rspamd scores as
 *   MIME_BASE64_TEXT_BOGUS), other text quoted-printable or, for mostly non-Latin text, base64
 *   (nodemailer's rule for text parts). writeMime encodes a lone CR or LF as data; an empty one
 *   is base64.
 * - `text/*` not in UTF-8: its charset is unknown, so it is labelled `charset=unknown-8bit`
 *   (RFC 1428) and sent base64.
 * - Anything else: base64, nodemailer's default.
 */
export function composerAttachment(attachment: OutgoingAttachment): ComposerAttachment {
  const { contentType, content } = attachment;
  if (/^message\//i.test(contentType)) return { contentType, contentTransferEncoding: 'base64', content };
  if (!/^text\//i.test(contentType)) return { contentType, content };
  if (!isUtf8(content)) return { contentType: `${contentType}; charset=unknown-8bit`, contentTransferEncoding: 'base64', content };
  return {
    contentType: `${contentType}; charset=utf-8`,
    // Present but undefined: nodemailer's rule for text parts decides (an absent one means base64).
    // An empty one base64 (empty all the same): mailparser reads an empty quoted-printable part as a CRLF.
    contentTransferEncoding: content.length === 0 ? 'base64' : isAscii(content) ? 'quoted-printable' : undefined,
    content,
  };
}
