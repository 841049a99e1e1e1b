import { z } from 'zod';
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_TOTAL_MAX_BYTES,
  EMAIL_TYPES,
  MAX_ATTACHMENTS,
  MAX_UNIQUE_RECIPIENTS,
  base64DecodedLength,
  bodyParts,
  checkExtraHeaders,
  checkSubject,
  collectRecipients,
  contentIdProblems,
  contentProblems,
  contentTypeForFilename,
  decodeStrictBase64,
  filenameProblems,
  MAX_REPLY_TO,
  MAX_TAGS,
  normalizeContentType,
  parseFromField,
  parseMailbox,
  parseRfc3339,
  RFC_3339_RULE,
  tagProblems,
  type DraftAttachment,
  type Mailbox,
  type EmailRequest,
} from '@mailer/domain';
import { timestampSchema } from '../../timestamp';

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const MAILBOX = 'An RFC 5321 mailbox (`local@domain`), or `Display Name <local@domain>` as `from` takes it; IDN domains are converted to A-labels.';

/** An address, with the display name the request gave it (the headers carry it; rules work on the address). */
type NamedMailbox = Mailbox & { displayName: string | null };

const mailbox = z
  .string({ error: 'must be a string (an email address)' })
  .meta({ description: MAILBOX })
  .transform((value, ctx): NamedMailbox => {
    const parsed = parseFromField(value);
    if (parsed.ok) return { ...parsed.value.mailbox, displayName: parsed.value.displayName };
    for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

/** The display names of the named addresses, by address; the first name an address is given wins. */
function displayNamesOf(...lists: NamedMailbox[][]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const m of lists.flat()) if (m.displayName !== null) names[m.address] ??= m.displayName;
  return names;
}

/** An array of addresses, or one address as a string (docs/api-decisions.md, "Send API additions"). */
const addressList = (array: z.ZodArray<typeof mailbox>, bounds: { minItems?: number; maxItems?: number } = {}) =>
  z
    .preprocess((value) => (typeof value === 'string' ? [value] : value), array)
    // Documented as what it accepts (openapi.ts keeps a declared anyOf alone).
    .meta({ anyOf: [{ type: 'string', description: MAILBOX }, { type: 'array', items: { type: 'string', description: MAILBOX }, ...bounds }] });

const addresses = () => z.array(mailbox, { error: required('an email address or an array of them') });
const recipientList = addressList(addresses());

const from = z
  .string({ error: required('a string') })
  .meta({ description: '`addr@domain`, `Display Name <addr@domain>` or `"Quoted, Name" <addr@domain>`.' })
  .transform((value, ctx) => {
    const parsed = parseFromField(value);
    if (!parsed.ok) for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
    return parsed.ok ? parsed.value : z.NEVER;
  });

const subject = z.string({ error: required('a string') }).transform((value, ctx) => {
  const checked = checkSubject(value);
  if (!checked.ok) for (const message of checked.problems) ctx.addIssue({ code: 'custom', message });
  return checked.ok ? checked.value : z.NEVER;
});

const content = z
  .strictObject(
    { plain: z.string({ error: 'must be a string' }).optional(), html: z.string({ error: 'must be a string' }).optional() },
    { error: required('an object with plain and/or html') },
  )
  .superRefine((value, ctx) => {
    for (const problem of contentProblems(value)) ctx.addIssue({ code: 'custom', path: problem.part ? [problem.part] : [], message: problem.message });
  })
  .transform(bodyParts);

const MIB_TEXT = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

const attachment = z
  .strictObject(
    {
      filename: z.string({ error: required('a string') }).superRefine((value, ctx) => {
        for (const message of filenameProblems(value)) ctx.addIssue({ code: 'custom', message });
      }),
      content_base64: z
        .string({ error: required('a string') })
        .meta({ description: 'Strict base64 (RFC 4648 section 4): no white space or line breaks, canonical padding.' })
        .transform((value, ctx) => {
          const size = base64DecodedLength(value);
          if (size > ATTACHMENT_MAX_BYTES) {
            ctx.addIssue({ code: 'custom', message: `decodes to ${size} bytes; an attachment may have at most ${MIB_TEXT(ATTACHMENT_MAX_BYTES)}` });
            return z.NEVER;
          }
          const bytes = decodeStrictBase64(value);
          if (!bytes) ctx.addIssue({ code: 'custom', message: 'must be strict base64 (standard alphabet, no white space or line breaks, canonical padding)' });
          return bytes ?? z.NEVER;
        }),
      content_type: z
        .string({ error: 'must be a string' })
        .meta({ description: '`type/subtype`; defaults from the filename extension, else application/octet-stream.' })
        .transform((value, ctx) => {
          const normalized = normalizeContentType(value);
          if (!normalized) ctx.addIssue({ code: 'custom', message: 'must be a media type type/subtype without parameters (multipart types are not allowed)' });
          return normalized ?? z.NEVER;
        })
        .optional(),
      content_id: z
        .string({ error: 'must be a string' })
        .meta({ description: 'Makes the attachment inline, referenced from the HTML as `cid:<content_id>`.' })
        .superRefine((value, ctx) => {
          for (const message of contentIdProblems(value)) ctx.addIssue({ code: 'custom', message });
        })
        .optional(),
    },
    { error: 'must be an object {filename, content_base64, content_type?, content_id?}' },
  )
  .transform(
    (a): DraftAttachment => ({
      filename: a.filename,
      contentType: a.content_type ?? contentTypeForFilename(a.filename),
      contentId: a.content_id ?? null,
      content: a.content_base64,
    }),
  );

/** Rules across attachments: the decoded total, and content ids unique within the message. */
function attachmentSetProblems(list: DraftAttachment[], ctx: z.RefinementCtx): void {
  const total = list.reduce((sum, a) => sum + a.content.length, 0);
  if (total > ATTACHMENTS_TOTAL_MAX_BYTES) {
    ctx.addIssue({ code: 'custom', message: `decode to ${total} bytes in all; at most ${MIB_TEXT(ATTACHMENTS_TOTAL_MAX_BYTES)} are allowed` });
  }
  const seen = new Set<string>();
  list.forEach((a, index) => {
    if (a.contentId === null) return;
    if (seen.has(a.contentId)) ctx.addIssue({ code: 'custom', path: [index, 'content_id'], message: 'is used by an earlier attachment' });
    seen.add(a.contentId);
  });
}

const attachments = z
  .array(attachment, { error: 'must be an array of attachments' })
  .max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} attachments`)
  // Only over attachments that each passed (a refused item is not decoded).
  .check(z.superRefine(attachmentSetProblems, { when: ({ issues }) => issues.length === 0 }));

const replyTo = addressList(addresses().max(MAX_REPLY_TO, `at most ${MAX_REPLY_TO} addresses`), { maxItems: MAX_REPLY_TO })
  .transform((list) => list.filter((m, i) => list.findIndex((other) => other.key === m.key) === i))
  .meta({ description: 'Addresses for the Reply-To header: one as a string or an array; duplicates collapse.' });

const headers = z
  .record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of header names to string values' })
  .meta({ description: 'Extra header fields: `X-…`, List-Unsubscribe, List-Unsubscribe-Post, List-Id, References, In-Reply-To; at most 50.' })
  .transform((value, ctx) => {
    const checked = checkExtraHeaders(value);
    if (!checked.ok) for (const p of checked.problems) ctx.addIssue({ code: 'custom', path: p.name === undefined ? [] : [p.name], message: p.message });
    return checked.ok ? checked.value : z.NEVER;
  });

const tags = z
  .record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of tag names to string values' })
  .meta({ description: 'At most 10 tags: names of 1..64 of A-Z a-z 0-9 _ -, values of at most 256 characters.' })
  .superRefine((value, ctx) => {
    const keys = Object.keys(value);
    if (keys.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags` });
    for (const key of keys) for (const p of tagProblems(key, value[key]!)) ctx.addIssue({ code: 'custom', path: [key], message: p.message });
  });

/** `scheduled_at` of a message: at intake and when rescheduled (PATCH /v1/emails/{id}). */
export const scheduledAtSchema = z
  .string({ error: 'must be a string (an RFC 3339 date-time)' })
  .meta({ format: 'date-time', description: 'Deliver at this instant (RFC 3339), at most 7 days ahead; a past instant means now.' })
  .transform((value, ctx) => {
    const parsed = parseRfc3339(value);
    if (!parsed) ctx.addIssue({ code: 'custom', message: RFC_3339_RULE });
    return parsed ?? z.NEVER;
  });

const RECIPIENT_FIELDS = new Set<PropertyKey>(['to', 'cc', 'bcc']);

/** `template: {id | alias, variables}` (docs/api-decisions.md, "Templates"): rendered at intake instead of `subject` and `content`. */
const template = z
  .strictObject(
    {
      id: z.string({ error: 'must be a string' }).meta({ description: 'tpl_…' }).optional(),
      alias: z.string({ error: 'must be a string' }).optional(),
      variables: z
        .record(z.string(), z.unknown(), { error: 'must be an object of names to JSON values' })
        .meta({ description: 'The values of the names the template uses: strings, numbers, booleans, null, objects for dotted names, arrays for sections.' })
        .optional()
        .default({}),
    },
    { error: 'must be an object {id | alias, variables}' },
  )
  .superRefine((value, ctx) => {
    if ((value.id === undefined) === (value.alias === undefined)) ctx.addIssue({ code: 'custom', message: 'must have exactly one of id and alias' });
  })
  .transform((value) => ({ reference: value.id !== undefined ? { id: value.id } : { alias: value.alias! }, variables: value.variables }));

const CONTENT_FIELDS = ['subject', 'content'] as const;

/**
 * A message body with `to` as given: required over HTTP, where the interface needs a `to`
 * recipient; over SMTP a message may address only BCC recipients (docs/api-decisions.md,
 * "SMTP submission"). Unknown members are refused at every depth.
 */
const emailBody = (to: ReturnType<typeof addressList>) =>
  z
    .strictObject({
      from,
      to,
      cc: recipientList.optional().default([]),
      bcc: recipientList.meta({ description: 'Input only: never shown back; only bcc_count is.' }).optional().default([]),
      type: z
        .enum(EMAIL_TYPES, { error: `must be one of: ${EMAIL_TYPES.join(', ')}` })
        .meta({ description: 'The stream: `transactional` (the default) or `broadcast`, each with its own suppressions.' })
        .optional()
        .default('transactional'),
      unsubscribe: z
        .boolean()
        .meta({
          description:
            'Each recipient\'s copy carries one-click unsubscribe headers (List-Unsubscribe with a link and a mailto: address, ' +
            'List-Unsubscribe-Post), as broadcast messages always do; unless `headers` gives a List-Unsubscribe of its own.',
        })
        .optional()
        .default(false),
      track: z
        .strictObject({
          opens: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: 'An open pixel at the end of the HTML part.' }),
          clicks: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: "The HTML part's http(s) links through the tracking host." }),
        })
        .optional()
        .meta({
          description:
            'Opens and clicks for this message, over the domain\'s `tracking` (docs: "Opens and clicks"); a field left out follows the domain. ' +
            'BCC recipients and test messages are never tracked.',
        }),
      subject: subject.meta({ description: 'Required unless `template` is given.' }).optional(),
      content: content.meta({ description: 'Required unless `template` is given.' }).optional(),
      template: template.meta({ description: 'Instead of `subject` and `content`: the template to render them from at intake.' }).optional(),
      attachments: attachments.optional().default([]),
      reply_to: replyTo.optional().default([]),
      headers: headers.optional(),
      tags: tags.optional().default({}),
      scheduled_at: scheduledAtSchema.optional(),
    })
    .check(
      // Either a template or the content itself, checked whatever else is wrong.
      z.superRefine(
        (body, ctx) => {
          const given = CONTENT_FIELDS.filter((field) => body[field] !== undefined);
          if (body.template !== undefined && given.length > 0) {
            ctx.addIssue({ code: 'custom', path: ['template'], message: `cannot be given with ${given.join(' and ')}: the template renders them` });
          }
          if (body.template === undefined) for (const field of CONTENT_FIELDS) if (body[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is required' });
        },
        { when: ({ value }) => typeof value === 'object' && value !== null && !Array.isArray(value) },
      ),
      z.superRefine(
        (body, ctx) => {
          const over = collectRecipients(body).overLimitAt;
          if (over) {
            ctx.addIssue({ code: 'custom', path: [over.field, over.index], message: `at most ${MAX_UNIQUE_RECIPIENTS} unique recipients across to, cc and bcc` });
          }
        },
        // Counted whenever the recipient lists themselves are valid, whatever else is wrong.
        {
          when: ({ value, issues }) => {
            const lists = value as Record<string, unknown> | null;
            if (!lists || ![lists.to, lists.cc, lists.bcc].every(Array.isArray)) return false;
            return !issues.some((issue) => RECIPIENT_FIELDS.has(issue.path?.[0] ?? ''));
          },
        },
      ),
    )
    .transform((body): EmailRequest => {
      const message = {
        from: body.from,
        type: body.type,
        unsubscribe: body.unsubscribe,
        track: { opens: body.track?.opens ?? null, clicks: body.track?.clicks ?? null },
        recipients: collectRecipients(body),
        attachments: body.attachments,
        replyTo: body.reply_to.map((m) => m.address),
        displayNames: displayNamesOf(body.to, body.cc, body.reply_to),
        headers: body.headers ?? [],
        tags: body.tags,
        scheduledAt: body.scheduled_at ?? null,
      };
      // The refinement above saw to it that one of them is given.
      return body.template ? { ...message, template: body.template } : { ...message, subject: body.subject!, text: body.content!.text, html: body.content!.html };
    });

/** The POST /v1/emails body (docs/api-decisions.md, "Emails"). */
export const sendEmailBodySchema = emailBody(addressList(addresses().min(1, 'must have at least one recipient'), { minItems: 1 })).meta({ id: 'SendEmailRequest' });

/**
 * A message read from SMTP submission: `to` may be empty when the envelope names its recipients
 * only as BCC (`To: undisclosed-recipients:;`); SMTP itself requires a recipient before DATA.
 */
export const submittedEmailBodySchema = emailBody(addressList(addresses()));

export const acceptedEmailSchema = z
  .object({ id: z.string().meta({ description: 'Opaque, begins with em_.' }), status: z.literal('queued'), created_at: timestampSchema })
  .meta({ id: 'AcceptedEmail' });

export const MAX_BATCH_MESSAGES = 100;

/** The POST /v1/emails/batch body: 1 to 100 messages, each as POST /v1/emails takes it; details name the item (`[3].to[0]`). */
export const sendEmailBatchBodySchema = z
  .array(sendEmailBodySchema, { error: 'must be an array of messages' })
  .min(1, 'must hold at least one message')
  .max(MAX_BATCH_MESSAGES, `at most ${MAX_BATCH_MESSAGES} messages`)
  .meta({ id: 'SendEmailBatchRequest' });

export const acceptedEmailBatchSchema = z
  .object({ data: z.array(acceptedEmailSchema).meta({ description: 'One entry per message, in the order of the request.' }) })
  .meta({ id: 'AcceptedEmailBatch' });
