import { z } from 'zod';
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_TOTAL_MAX_BYTES,
  EMAIL_TYPES,
  MAX_ATTACHMENTS,
  MAX_UNIQUE_RECIPIENTS,
  base64DecodedLength,
  bodyParts,
  checkSubject,
  collectRecipients,
  contentIdProblems,
  contentProblems,
  contentTypeForFilename,
  decodeStrictBase64,
  filenameProblems,
  normalizeContentType,
  parseFromField,
  parseMailbox,
  type DraftAttachment,
  type EmailDraft,
} from '@mailer/domain';
import { timestampSchema } from '@mailer/operations';

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const mailbox = z
  .string({ error: 'must be a string (an email address)' })
  .meta({ description: 'An RFC 5321 mailbox (`local@domain`); IDN domains are converted to A-labels.' })
  .transform((value, ctx) => {
    const parsed = parseMailbox(value);
    if (!parsed) ctx.addIssue({ code: 'custom', message: 'not a valid email address' });
    return parsed ?? z.NEVER;
  });

const recipientList = z.array(mailbox, { error: required('an array of email addresses') });

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

const RECIPIENT_FIELDS = new Set<PropertyKey>(['to', 'cc', 'bcc']);

/** The POST /v1/emails body (docs/api-decisions.md, "Emails"); unknown members are refused at every depth. */
export const sendEmailBodySchema = z
  .strictObject({
    from,
    to: recipientList.min(1, 'must have at least one recipient'),
    cc: recipientList.optional().default([]),
    bcc: recipientList.meta({ description: 'Input only: never shown back; only bcc_count is.' }).optional().default([]),
    type: z.enum(EMAIL_TYPES, { error: `must be one of: ${EMAIL_TYPES.join(', ')}` }).optional().default('transactional'),
    subject,
    content,
    attachments: attachments.optional().default([]),
  })
  .check(
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
  .transform(
    (body): EmailDraft => ({
      from: body.from,
      type: body.type,
      subject: body.subject,
      text: body.content.text,
      html: body.content.html,
      recipients: collectRecipients(body),
      attachments: body.attachments,
    }),
  )
  .meta({ id: 'SendEmailRequest' });

export const acceptedEmailSchema = z
  .object({ id: z.string().meta({ description: 'Opaque, begins with em_.' }), status: z.literal('queued'), created_at: timestampSchema })
  .meta({ id: 'AcceptedEmail' });
