import { z } from 'zod';
import { templateReference } from '@mailer/domain';
import { MAX_BATCH_MESSAGES } from '@mailer/operations';

/**
 * Resend's email body (docs/api-decisions.md, "Resend and Postmark adapters"), mapped member by
 * member onto the POST /v1/emails body, which then validates it exactly as /v1 does. Only the
 * shape that the mapping needs is checked here; values keep /v1's rules.
 */
const passed = (type: 'string' | 'object', description: string) => z.unknown().meta({ type, description });
const addresses = (description: string) =>
  z.unknown().meta({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description });

const attachment = z
  .strictObject({
    filename: passed('string', 'The file name.').optional(),
    content: passed('string', 'The bytes, base64.').optional(),
    content_type: passed('string', 'Defaults from the file name.').optional(),
    content_id: passed('string', 'Makes it an inline part (`cid:`).').optional(),
    path: z.unknown().meta({ type: 'string', description: 'Refused: the service fetches nothing on a client\'s behalf; send `content`.' }).optional(),
  })
  .superRefine((a, ctx) => {
    if (a.path !== undefined) ctx.addIssue({ code: 'custom', path: ['path'], message: 'remote attachments are not fetched; send the bytes base64-encoded in content' });
  })
  .transform((a) => ({ filename: a.filename, content_base64: a.content, content_type: a.content_type, content_id: a.content_id }));

const tags = z
  .array(z.strictObject({ name: z.string(), value: z.string() }))
  .superRefine((list, ctx) => {
    list.forEach((tag, i) => {
      if (list.findIndex((t) => t.name === tag.name) < i) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'repeats an earlier tag' });
    });
  })
  .transform((list) => Object.fromEntries(list.map((t) => [t.name, t.value])));

/** Resend's `template: {id, variables}`; its `id` names a template by `tpl_…` id or by alias, as a path does here. */
const template = z
  .strictObject({
    id: z.string().meta({ description: 'A template id (`tpl_…`) or alias.' }),
    variables: passed('object', 'The values of the names the template uses.').optional(),
  })
  .transform(({ id, variables }) => ({ ...templateReference(id), variables }));

const unsupported = (description: string) => z.unknown().meta({ description }).optional();

export const resendEmailSchema = z
  .strictObject({
    from: passed('string', '`addr@domain` or `Name <addr@domain>`: an active sender of the account.'),
    to: addresses('One address or up to 50, display names accepted.'),
    cc: addresses('As `to`.').optional(),
    bcc: addresses('As `to`; never shown back.').optional(),
    reply_to: addresses('Reply-To addresses.').optional(),
    subject: passed('string', '1 to 998 characters; required unless `template` is given.').optional(),
    html: passed('string', 'The HTML part.').optional(),
    text: passed('string', 'The plain-text part.').optional(),
    headers: passed('object', 'Extra header fields, as /v1 takes them.').optional(),
    attachments: z.array(attachment).optional(),
    tags: tags.optional(),
    scheduled_at: passed('string', 'RFC 3339, at most 7 days ahead.').optional(),
    template: template.meta({ description: 'Instead of `subject`, `html` and `text`: the template rendered at intake.' }).optional(),
    topic_id: unsupported('Refused: topics (contact lists) do not exist here.'),
  })
  .superRefine((body, ctx) => {
    if (body.topic_id !== undefined) ctx.addIssue({ code: 'custom', path: ['topic_id'], message: 'topics are not supported' });
  })
  .transform(({ html, text, attachments, topic_id: _, ...rest }) => ({
    ...rest,
    ...(html === undefined && text === undefined ? {} : { content: { ...(text === undefined ? {} : { plain: text }), ...(html === undefined ? {} : { html }) } }),
    ...(attachments ? { attachments } : {}),
  }))
  .meta({ id: 'ResendSendEmailRequest' });

export const resendEmailBatchSchema = z.array(resendEmailSchema).max(MAX_BATCH_MESSAGES).meta({ id: 'ResendSendEmailBatchRequest' });

export const resendSentSchema = z.object({ id: z.string().meta({ description: 'em_…: the same message at GET /v1/emails/{id}.' }) }).meta({ id: 'ResendSentEmail' });
export const resendBatchSentSchema = z.object({ data: z.array(resendSentSchema) }).meta({ id: 'ResendSentEmailBatch' });
