import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { newId, type InboundMessage } from '@mailer/domain';

/**
 * mailparser's bounds on a received message (docs/api-decisions.md, "Inbound mail"), as the
 * return path applies them: 256 KiB of header in any MIME part (each line counting at least 64
 * bytes) and 1,000 parts, nested ones included, so deep nesting is bounded too. Past them the
 * message is refused at the end of DATA.
 */
export const INBOUND_MAX_PART_HEADER_BYTES = 256 * 1024;
export const INBOUND_MAX_PARTS = 1_000;

const parse = (raw: Buffer): Promise<ParsedMail> =>
  simpleParser(raw, {
    maxHeadSize: INBOUND_MAX_PART_HEADER_BYTES,
    maxChildNodes: INBOUND_MAX_PARTS,
    checksumAlgo: false,
    skipImageLinks: true,
    skipTextLinks: true,
    skipTextToHtml: true,
  } as Parameters<typeof simpleParser>[1]);

const addresses = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((group) => group.value).map((a) => (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? ''))).filter(Boolean);

/** Headers as they came, in order, each unfolded (mailparser's `headerLines`: `Name: value`). */
const headerList = (mail: ParsedMail) =>
  mail.headerLines.map(({ line }) => {
    const colon = line.indexOf(':');
    return { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).replace(/\r?\n[ \t]*/g, ' ').trim() };
  });

/** Reads a received message once, before its 250: what GET /v1/inbound/emails/{id} shows, attachments with new ids. */
export async function readInboundMessage(raw: Buffer): Promise<InboundMessage> {
  const mail = await parse(raw);
  return {
    from: addresses(mail.from)[0] ?? null,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    reply_to: addresses(mail.replyTo),
    subject: mail.subject ?? null,
    text: mail.text ?? null,
    html: typeof mail.html === 'string' ? mail.html : null,
    headers: headerList(mail),
    attachments: mail.attachments.map((a, part) => ({
      id: newId('inboundAttachment'),
      filename: a.filename ?? null,
      content_type: a.contentType,
      size: a.size,
      content_id: a.contentId?.replace(/^<|>$/g, '') ?? null,
      part,
    })),
  };
}

/** The decoded bytes of every attachment of a stored message, by `part`, read again from its raw MIME. */
export async function inboundAttachmentContents(raw: Buffer): Promise<Buffer[]> {
  return (await parse(raw)).attachments.map((a) => a.content);
}

/** The bytes of the `part`-th attachment of a stored message, read again from its raw MIME. */
export async function inboundAttachmentContent(raw: Buffer, part: number): Promise<Buffer | undefined> {
  return (await inboundAttachmentContents(raw))[part];
}
