import { simpleParser, type Attachment, type HeaderValue } from 'mailparser';
import type { DeliveryReport } from '@mailer/domain';

/** One recipient a report is about: the addresses naming it (Original- and Final-Recipient) and what it says. */
export interface ReportedRecipient {
  addresses: string[];
  report: DeliveryReport;
}

/**
 * A delivery status notification (RFC 3464) or a complaint (ARF, RFC 5965) as read from a
 * message. `envelopeSenders` are the return-path addresses the report itself names (ARF's
 * Original-Mail-From, the returned message's Return-Path): a complaint sent to a fixed
 * feedback-loop address still names its delivery through them.
 */
export interface ParsedReport {
  kind: 'dsn' | 'arf';
  envelopeSenders: string[];
  recipients: ReportedRecipient[];
}

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const ARF_TYPE = 'message/feedback-report';
const RETURNED_TYPES = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']);

/** A header group's fields, names in lower case; a repeated field keeps its first value. */
type Fields = Map<string, string>;

const text = (value: HeaderValue | undefined): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return text(value[0] as HeaderValue);
  if (value instanceof Date) return value.toISOString();
  if ('text' in value && typeof value.text === 'string') return value.text;
  // Structured values (content types and the like): the value without parameters; the fields read here have none.
  return 'value' in value ? String(value.value) : undefined;
};

/**
 * A block of RFC 822-style fields read with mailparser's header parsing (unfolding and
 * decoding included). A delivery-status body is such blocks separated by blank lines
 * (RFC 3464 section 2.1): the per-message fields, then one block per recipient.
 */
async function readFields(block: string): Promise<Fields> {
  const parsed = await simpleParser(`${block.trim()}\r\n\r\n`, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
  const fields: Fields = new Map();
  for (const [name, value] of parsed.headers) {
    const v = text(value);
    if (v !== undefined) fields.set(name.toLowerCase(), v.trim());
  }
  return fields;
}

const blocks = (body: Buffer): string[] =>
  body
    .toString('utf8')
    .split(/\r?\n(?:[ \t]*\r?\n)+/)
    .filter((b) => b.trim() !== '');

/** `rfc822; a@b` (address-type; address, RFC 3464 section 2.3.2) or `<a@b>` to the address. */
function address(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  const bare = value.trim().replace(/^<(.*)>$/, '$1').trim();
  return bare.includes('@') ? bare : undefined;
}

const defined = <T>(values: (T | undefined)[]): T[] => values.filter((v): v is T => v !== undefined);

async function readDeliveryStatus(part: Attachment): Promise<ReportedRecipient[]> {
  const [, ...perRecipient] = await Promise.all(blocks(part.content).map(readFields));
  const recipients: ReportedRecipient[] = [];
  for (const fields of perRecipient) {
    const action = fields.get('action')?.toLowerCase();
    const status = fields.get('status');
    if ((action !== 'failed' && action !== 'delayed') || !status) continue;
    const addresses = defined([address(fields.get('original-recipient')), address(fields.get('final-recipient'))]);
    recipients.push({ addresses, report: { kind: action, status: status.split(/\s/)[0]!, diagnosticCode: fields.get('diagnostic-code') ?? null } });
  }
  return recipients;
}

/** The Return-Path of the returned message or its headers (the envelope sender the recipient's server saw). */
async function returnedEnvelopeSender(parts: readonly Attachment[]): Promise<string | undefined> {
  const returned = parts.find((p) => RETURNED_TYPES.has(p.contentType));
  if (!returned) return undefined;
  const [headers] = blocks(returned.content);
  return headers ? address((await readFields(headers)).get('return-path')) : undefined;
}

/**
 * Reads a report, or undefined when the message is none: no `message/delivery-status` or
 * `message/feedback-report` part, or one without a recipient it could act on. Malformed
 * MIME is read as far as it goes (mailparser never throws on content, only on I/O).
 */
export async function readReport(raw: Buffer): Promise<ParsedReport | undefined> {
  // The report parts and the returned message (even one marked inline) come as attachments, unparsed.
  const message = await simpleParser(raw, {
    keepDeliveryStatus: true,
    ignoreEmbedded: true,
    checksumAlgo: false,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const parts = message.attachments;
  const returned = await returnedEnvelopeSender(parts);
  const dsn = parts.find((p) => DSN_TYPES.has(p.contentType));
  if (dsn) {
    const recipients = await readDeliveryStatus(dsn);
    return recipients.length > 0 ? { kind: 'dsn', envelopeSenders: defined([returned]), recipients } : undefined;
  }
  const arf = parts.find((p) => p.contentType === ARF_TYPE);
  if (!arf) return undefined;
  const [first] = blocks(arf.content);
  const fields = first ? await readFields(first) : new Map<string, string>();
  const feedbackType = fields.get('feedback-type')?.toLowerCase();
  if (!feedbackType) return undefined;
  return {
    kind: 'arf',
    envelopeSenders: defined([address(fields.get('original-mail-from')), returned]),
    recipients: [{ addresses: defined([address(fields.get('original-rcpt-to'))]), report: { kind: 'complaint', feedbackType } }],
  };
}
