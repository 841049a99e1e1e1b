import { simpleParser, type Attachment } from 'mailparser';
import type { DeliveryReport } from '@mailer/domain';
import { fieldGroups, type Fields } from './field-groups';

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

/**
 * Recipients read from one DSN: a transaction has at most 50 (one message's recipients at one
 * domain), so a report naming more is read as far as this and no further.
 */
export const MAX_REPORTED_RECIPIENTS = 100;

/** Bytes of each report part read (the delivery-status fields, the feedback report, the returned message's header). */
export const MAX_REPORT_PART_BYTES = 128 * 1024;

/**
 * mailparser's bound on one MIME part's header (1 MiB by default; each line counts at least 64
 * bytes, so 4,096 lines here), ample for a returned message's header. Parsing a hostile header
 * (thousands of RFC 2231 parameters) costs up to about 0.4 ms a KiB: about 0.1 s at this bound.
 */
export const MAX_PART_HEADER_BYTES = 256 * 1024;

/** `rfc822; a@b` (address-type; address, RFC 3464 section 2.3.2), `<a@b>` or `Name <a@b>` to the address. */
function address(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  const open = value.lastIndexOf('<');
  const close = value.indexOf('>', open);
  const bare = (open >= 0 && close > open ? value.slice(open + 1, close) : value).trim();
  return bare.includes('@') ? bare : undefined;
}

const defined = <T>(values: (T | undefined)[]): T[] => values.filter((v): v is T => v !== undefined);

function readDeliveryStatus(part: Attachment): ReportedRecipient[] {
  const [, ...perRecipient] = fieldGroups(part.content, { groups: 1 + MAX_REPORTED_RECIPIENTS, bytes: MAX_REPORT_PART_BYTES });
  const recipients: ReportedRecipient[] = [];
  for (const fields of perRecipient) {
    const action = fields.get('action')?.toLowerCase();
    const status = fields.get('status');
    if ((action !== 'failed' && action !== 'delayed') || !status) continue;
    const addresses = defined([address(fields.get('original-recipient')), address(fields.get('final-recipient'))]);
    recipients.push({ addresses, report: { kind: action, status: status.split(/\s/, 1)[0]!, diagnosticCode: fields.get('diagnostic-code') ?? null } });
  }
  return recipients;
}

/** The fields of a part's first group: a feedback report's, or a returned message's header. */
const firstGroup = (part: Attachment): Fields => fieldGroups(part.content, { groups: 1, bytes: MAX_REPORT_PART_BYTES })[0] ?? new Map();

/** The Return-Path of the returned message or its headers (the envelope sender the recipient's server saw). */
function returnedEnvelopeSender(parts: readonly Attachment[]): string | undefined {
  const returned = parts.find((p) => RETURNED_TYPES.has(p.contentType));
  return returned ? address(firstGroup(returned).get('return-path')) : undefined;
}

/**
 * Reads a report, or undefined when the message is none: no `message/delivery-status` or
 * `message/feedback-report` part, or one without a recipient it could act on. Malformed
 * MIME is read as far as it goes; past mailparser's bounds (MAX_PART_HEADER_BYTES of header
 * in a part, 1,000 parts) it throws, and the message counts as unparseable. Of the parts, only the
 * report's and the returned message's header are read, each within MAX_REPORT_PART_BYTES.
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
    maxHeadSize: MAX_PART_HEADER_BYTES,
  });
  const parts = message.attachments;
  const returned = returnedEnvelopeSender(parts);
  const dsn = parts.find((p) => DSN_TYPES.has(p.contentType));
  if (dsn) {
    const recipients = readDeliveryStatus(dsn);
    return recipients.length > 0 ? { kind: 'dsn', envelopeSenders: defined([returned]), recipients } : undefined;
  }
  const arf = parts.find((p) => p.contentType === ARF_TYPE);
  if (!arf) return undefined;
  const fields = firstGroup(arf);
  const feedbackType = fields.get('feedback-type')?.toLowerCase();
  if (!feedbackType) return undefined;
  return {
    kind: 'arf',
    envelopeSenders: defined([address(fields.get('original-mail-from')), returned]),
    recipients: [{ addresses: defined([address(fields.get('original-rcpt-to'))]), report: { kind: 'complaint', feedbackType } }],
  };
}
