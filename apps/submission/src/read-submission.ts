import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail } from 'mailparser';
import { addressKey, formatMailbox, type ErrorDetail } from '@mailer/domain';

/** Header fields passed on as `headers` (section 14 of the send API); every other field is dropped. */
const PASSED_HEADERS = new Set(['list-unsubscribe', 'list-unsubscribe-post', 'list-id', 'references', 'in-reply-to']);
/** `X-Mailer-Tag: name=value`, once per tag: read into `tags`, never sent on. */
const TAG_HEADER = 'x-mailer-tag';
const IDEMPOTENCY_HEADER = 'idempotency-key';
/**
 * `X-Mailer-Template: <alias>` and `X-Mailer-Template-Variables: <JSON object>` (docs/api-decisions.md,
 * "Templates"): the message is rendered from the template, its own subject and body ignored; never sent on.
 */
const TEMPLATE_HEADER = 'x-mailer-template';
const TEMPLATE_VARIABLES_HEADER = 'x-mailer-template-variables';

const ENCODED_WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;

/**
 * An unstructured header value with its RFC 2047 encoded words decoded (white space between two
 * of them dropped, 6.2): nodemailer, for one, writes a value holding `"` as encoded words, and
 * mailparser decodes only the fields it knows. A charset TextDecoder does not know stays as written.
 */
export function decodeEncodedWords(value: string): string {
  return value.replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1').replace(ENCODED_WORD, (word, charset: string, encoding: string, text: string) => {
    const bytes =
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    try {
      return new TextDecoder(charset.split('*')[0]!, { fatal: true }).decode(bytes);
    } catch {
      return word;
    }
  });
}

/** The template reference the two headers make, or undefined without X-Mailer-Template. */
function templateOf(mail: ParsedMail, problems: ErrorDetail[]): Record<string, unknown> | undefined {
  const decoded = (key: string) => {
    const line = mail.headerLines.find((h) => h.key === key)?.line;
    return line === undefined ? undefined : decodeEncodedWords(headerValue(line));
  };
  const alias = decoded(TEMPLATE_HEADER);
  const variablesText = decoded(TEMPLATE_VARIABLES_HEADER);
  if (alias === undefined) {
    if (variablesText !== undefined) problems.push({ path: 'template', message: 'X-Mailer-Template-Variables needs an X-Mailer-Template header naming the template' });
    return undefined;
  }
  let variables: unknown = {};
  if (variablesText !== undefined) {
    try {
      variables = JSON.parse(variablesText);
    } catch {
      variables = undefined;
    }
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
      problems.push({ path: 'template.variables', message: 'the X-Mailer-Template-Variables header must be a JSON object' });
    }
  }
  return { alias, variables };
}

/** A submitted message read into the request POST /v1/emails takes, and what identifies it for idempotency. */
export interface Submission {
  /** The send-email request body: validated, fingerprinted and accepted exactly as over HTTP. */
  body: Record<string, unknown>;
  /** Problems the headers have that the body cannot show (a tag without `=`). */
  problems: ErrorDetail[];
  /** The Idempotency-Key header, else the Message-ID; undefined when the message has neither. */
  idempotencyKey: string | undefined;
}

const mailboxesOf = (field: AddressObject | AddressObject[] | undefined): EmailAddress[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((o) => o.value).flatMap((a) => (a.group ? a.group : [a]));

/** A raw header line's value, unfolded (RFC 5322 2.2.3) and trimmed. */
const headerValue = (line: string) => line.slice(line.indexOf(':') + 1).replace(/\r?\n(?=[ \t])/g, '').trim();

/**
 * Reads a submitted message (docs/api-decisions.md, "SMTP submission"). The envelope decides
 * who receives it: an envelope recipient named in To is `to`, else in Cc `cc`, else `bcc`
 * (never written into a header); addresses of To and Cc that are not envelope recipients
 * receive nothing and are left out. Inline parts keep their Content-ID; a part without a
 * file name is named after its position.
 */
export async function readSubmission(raw: Buffer, envelopeRecipients: readonly string[]): Promise<Submission> {
  const mail: ParsedMail = await simpleParser(raw, { keepCidLinks: true, skipTextLinks: true, skipHtmlToText: true });
  const envelope = new Map(envelopeRecipients.map((address) => [addressKey(address), address]));
  const take = (field: AddressObject | AddressObject[] | undefined): string[] =>
    mailboxesOf(field).flatMap((m) => {
      const key = m.address ? addressKey(m.address) : undefined;
      const address = key === undefined ? undefined : envelope.get(key);
      if (address === undefined || key === undefined) return [];
      envelope.delete(key);
      return [address];
    });
  const to = take(mail.to);
  const cc = take(mail.cc);
  const bcc = [...envelope.values()];

  const senders = mailboxesOf(mail.from);
  const sender = senders.length === 1 ? senders[0]! : undefined;
  const problems: ErrorDetail[] = [];
  if (senders.length !== 1 || !sender?.address) problems.push({ path: 'from', message: 'the From header must name exactly one mailbox' });

  const headers: Record<string, string> = {};
  const tags: Record<string, string> = {};
  const template = templateOf(mail, problems);
  for (const { key, line } of mail.headerLines) {
    if (key === TEMPLATE_HEADER || key === TEMPLATE_VARIABLES_HEADER) continue;
    if (key === TAG_HEADER) {
      const value = headerValue(line);
      const equals = value.indexOf('=');
      if (equals <= 0) problems.push({ path: 'tags', message: 'an X-Mailer-Tag header must read name=value' });
      else tags[value.slice(0, equals).trim()] = value.slice(equals + 1).trim();
      continue;
    }
    if (!key.startsWith('x-') && !PASSED_HEADERS.has(key)) continue;
    const name = line.slice(0, line.indexOf(':')).trim();
    // The first of repeated fields is kept, as a header object holds one value per name.
    if (!Object.keys(headers).some((n) => n.toLowerCase() === key)) headers[name] = headerValue(line);
  }

  const attachments = mail.attachments.map((a, index) => {
    const inline = Boolean(a.cid) && (a.contentDisposition === 'inline' || a.related);
    return {
      filename: a.filename ?? `${inline ? 'inline' : 'attachment'}-${index + 1}`,
      content_base64: a.content.toString('base64'),
      content_type: a.contentType,
      ...(inline ? { content_id: a.cid } : {}),
    };
  });

  const body: Record<string, unknown> = {
    from: sender?.address ? formatMailbox(sender.address, sender.name || null) : '',
    to,
    cc,
    bcc,
    ...(template
      ? { template }
      : {
          subject: mail.subject,
          content: { ...(mail.text !== undefined ? { plain: mail.text } : {}), ...(mail.html !== false ? { html: mail.html } : {}) },
        }),
    attachments,
    reply_to: mailboxesOf(mail.replyTo).flatMap((m) => (m.address ? [m.address] : [])),
    headers,
    tags,
  };
  const idempotencyHeader = mail.headerLines.find((h) => h.key === IDEMPOTENCY_HEADER);
  return { body, problems, idempotencyKey: idempotencyHeader ? headerValue(idempotencyHeader.line) : mail.messageId };
}
