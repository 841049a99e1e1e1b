import { z } from 'zod';
import { splitAddressList, templateReference } from '@mailer/domain';
import { POSTMARK_STREAM_IDS, POSTMARK_STREAMS } from './postmark-streams';

/**
 * Postmark's email body (docs/api-decisions.md, "Resend and Postmark adapters"), mapped member by
 * member onto the POST /v1/emails body, which then validates it as /v1 does. Only the shape the
 * mapping needs is checked here; what cannot be honoured is refused by name.
 */
const passed = (type: 'string' | 'object', description: string) => z.unknown().meta({ type, description });
const list = (description: string) =>
  z
    .string()
    .meta({ description: `${description} Comma-separated, display names accepted.` })
    .transform(splitAddressList);

const attachment = z
  .strictObject({
    Name: passed('string', 'The file name.').optional(),
    Content: passed('string', 'The bytes, base64.').optional(),
    ContentType: passed('string', 'Defaults from the file name.').optional(),
    ContentID: z.string().nullable().meta({ description: 'Makes it an inline part; a leading `cid:` is dropped; null: an attachment.' }).optional(),
    ContentLength: z.unknown().meta({ type: 'integer', description: 'Ignored: the size is that of Content.' }).optional(),
  })
  .transform((a) => ({ filename: a.Name, content_base64: a.Content, content_type: a.ContentType, content_id: a.ContentID?.replace(/^cid:/i, '') ?? undefined }));

/** The members /email and /email/withTemplate share: the envelope, the extra headers, tags and attachments. */
/** Postmark's link tracking modes; the service rewrites links of the HTML part only (docs/api-decisions.md, "Opens and clicks"). */
const POSTMARK_TRACK_LINKS = ['None', 'HtmlAndText', 'HtmlOnly', 'TextOnly'] as const;

const messageFields = {
  From: passed('string', '`addr@domain` or `Name <addr@domain>`: an active sender of the account.'),
  To: list('Up to 50 recipients across To, Cc and Bcc.'),
  Cc: list('As To.').optional(),
  Bcc: list('As To; never shown back.').optional(),
  ReplyTo: list('Reply-To addresses.').optional(),
  Headers: z.array(z.strictObject({ Name: z.string(), Value: z.string() })).optional(),
  Tag: passed('string', 'Kept as the tag `tag`.').optional(),
  Metadata: z.record(z.string(), z.unknown()).meta({ description: 'Kept as tags (at most 10 with Tag).' }).optional(),
  Attachments: z.array(attachment).optional(),
  MessageStream: z
    .enum(POSTMARK_STREAM_IDS, { error: 'must be outbound or broadcast' })
    .meta({ description: '`outbound` (the transactional stream, the default) or `broadcast` (the broadcast stream).' })
    .optional(),
  TrackOpens: z.boolean().meta({ description: '`track.opens` of /v1: left out, the domain\'s setting.' }).optional(),
  TrackLinks: z
    .enum(POSTMARK_TRACK_LINKS)
    .meta({ description: '`track.clicks` of /v1: on for `HtmlAndText` and `HtmlOnly` (only HTML links are rewritten), off for `None` and `TextOnly`; left out, the domain\'s setting.' })
    .optional(),
};

type MessageFields = z.output<z.ZodObject<typeof messageFields>>;

/** What cannot be honoured of the shared members is refused by name. */
function refuseUnhonoured(body: MessageFields, ctx: z.RefinementCtx) {
  if (body.Tag !== undefined && body.Metadata && 'tag' in body.Metadata) ctx.addIssue({ code: 'custom', path: ['Metadata', 'tag'], message: 'is where Tag is kept; use another name' });
}

/** The shared members as /v1 names them. */
const v1Fields = (b: MessageFields) => ({
  from: b.From,
  to: b.To,
  ...(b.Cc ? { cc: b.Cc } : {}),
  ...(b.Bcc ? { bcc: b.Bcc } : {}),
  ...(b.ReplyTo ? { reply_to: b.ReplyTo } : {}),
  ...(b.Headers ? { headers: Object.fromEntries(b.Headers.map((h) => [h.Name, h.Value])) } : {}),
  ...(b.Tag === undefined && !b.Metadata ? {} : { tags: { ...b.Metadata, ...(b.Tag === undefined ? {} : { tag: b.Tag }) } }),
  ...(b.Attachments ? { attachments: b.Attachments } : {}),
  ...(b.MessageStream ? { type: POSTMARK_STREAMS[b.MessageStream] } : {}),
  ...(b.TrackOpens === undefined && b.TrackLinks === undefined
    ? {}
    : {
        track: {
          ...(b.TrackOpens === undefined ? {} : { opens: b.TrackOpens }),
          ...(b.TrackLinks === undefined ? {} : { clicks: b.TrackLinks === 'HtmlAndText' || b.TrackLinks === 'HtmlOnly' }),
        },
      }),
});

export const postmarkEmailSchema = z
  .strictObject({
    ...messageFields,
    Subject: passed('string', '1 to 998 characters.'),
    HtmlBody: passed('string', 'The HTML part.').optional(),
    TextBody: passed('string', 'The plain-text part.').optional(),
  })
  .superRefine(refuseUnhonoured)
  .transform((b) => ({
    ...v1Fields(b),
    subject: b.Subject,
    ...(b.HtmlBody === undefined && b.TextBody === undefined
      ? {}
      : { content: { ...(b.TextBody === undefined ? {} : { plain: b.TextBody }), ...(b.HtmlBody === undefined ? {} : { html: b.HtmlBody }) } }),
  }))
  .meta({ id: 'PostmarkSendEmailRequest' });

/**
 * Postmark's templated message (/email/withTemplate): the template by TemplateId (here a `tpl_…` id)
 * or TemplateAlias, its TemplateModel as the variables. A TemplateAlias of an id's shape names the
 * id, as a path does (clients such as django-anymail send every non-numeric template as an alias).
 */
const aliasReference = (alias: unknown) => (alias === undefined ? {} : typeof alias === 'string' ? templateReference(alias) : { alias });

export const postmarkTemplatedEmailSchema = z
  .strictObject({
    ...messageFields,
    TemplateId: passed('string', 'A template id (`tpl_…`; Postmark\'s numeric ids do not exist here). Either it or TemplateAlias.').optional(),
    TemplateAlias: passed('string', 'A template alias (or a `tpl_…` id). Either it or TemplateId.').optional(),
    TemplateModel: passed('object', 'The values of the names the template uses.').optional(),
    InlineCss: z.boolean().meta({ description: 'CSS is not inlined: `true` is refused.' }).optional(),
  })
  .superRefine((body, ctx) => {
    refuseUnhonoured(body, ctx);
    if (body.TemplateId !== undefined && body.TemplateAlias !== undefined) ctx.addIssue({ code: 'custom', path: ['TemplateAlias'], message: 'give TemplateId or TemplateAlias, not both' });
    if (body.InlineCss === true) ctx.addIssue({ code: 'custom', path: ['InlineCss'], message: 'CSS is not inlined; send it inline in the template' });
  })
  .transform((b) => ({
    ...v1Fields(b),
    template: { ...(b.TemplateId === undefined ? {} : { id: b.TemplateId }), ...aliasReference(b.TemplateAlias), variables: b.TemplateModel },
  }))
  .meta({ id: 'PostmarkSendEmailWithTemplateRequest' });

export const postmarkSentSchema = z
  .object({
    To: z.string().meta({ description: 'To as the request gave it.' }),
    SubmittedAt: z.string().meta({ format: 'date-time' }),
    MessageID: z.string().meta({ description: 'em_…: the same message at GET /v1/emails/{id}.' }),
    ErrorCode: z.literal(0),
    Message: z.literal('OK'),
  })
  .meta({ id: 'PostmarkSentEmail' });

export const postmarkBatchResultSchema = z
  .object({
    To: z.string().optional(),
    SubmittedAt: z.string().meta({ format: 'date-time' }).optional(),
    MessageID: z.string().optional(),
    ErrorCode: z.number().int(),
    Message: z.string(),
  })
  .meta({ id: 'PostmarkBatchResult' });
