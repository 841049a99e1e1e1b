import { z } from 'zod';
import { TEMPLATE_ALIAS_RULE, TEMPLATE_NAME_RULE, isTemplateAlias, normalizeTemplateName } from '@mailer/domain';
import { type Template, type TemplateVersion, timestampSchema } from '@mailer/operations';
import { pageQuerySchema } from '../../http/pagination';

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const name = z.string({ error: required('a string') }).transform((value, ctx) => {
  const normalized = normalizeTemplateName(value);
  if (normalized === undefined) ctx.addIssue({ code: 'custom', message: TEMPLATE_NAME_RULE });
  return normalized ?? z.NEVER;
});

const alias = z
  .string({ error: 'must be a string or null' })
  .refine(isTemplateAlias, TEMPLATE_ALIAS_RULE)
  .nullable()
  .meta({ description: '`[a-z0-9_-]{1,64}`, unique among the account\'s templates; what a message names the template by (`template.alias`).' });

const SOURCE = 'Mustache: `{{name}}`, `{{{name}}}`, dotted names, `{{#section}}…{{/section}}`, `{{^inverted}}…{{/inverted}}`.';
const subject = z.string({ error: required('a string') }).meta({ description: `One line of at most 998 characters. ${SOURCE} Not HTML-escaped.` });
const html = z.string({ error: 'must be a string or null' }).nullable().meta({ description: `At most 1 MiB. ${SOURCE} \`{{name}}\` is HTML-escaped here.` });
const text = z
  .string({ error: 'must be a string or null' })
  .nullable()
  .meta({ description: `At most 256 KiB. ${SOURCE} Not escaped. Without it the plain part is generated from the rendered HTML.` });

export const createTemplateBodySchema = z
  .strictObject({ name, alias: alias.optional(), subject, html: html.optional(), text: text.optional() })
  .meta({ id: 'CreateTemplateRequest' });

export const updateTemplateBodySchema = z
  .strictObject({ name: name.optional(), alias: alias.optional(), subject: subject.optional(), html: html.optional(), text: text.optional() })
  .meta({ id: 'UpdateTemplateRequest' });

export const listTemplatesQuerySchema = pageQuerySchema;

export const renderTemplateBodySchema = z
  .strictObject({
    variables: z
      .record(z.string(), z.unknown(), { error: 'must be an object of names to JSON values' })
      .optional()
      .default({})
      .meta({ description: 'The values of the names the template uses, as a message would give them.' }),
  })
  .meta({ id: 'RenderTemplateRequest' });

const fields = {
  name: z.string(),
  alias: z.string().nullable(),
  version: z.number().int().min(1).meta({ description: 'Starts at 1; every change makes the next one.' }),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  variables: z.array(z.string()).meta({ description: 'The names the template uses, as written (dotted names whole, section names included), in order of first use.' }),
};

/** The template representation (docs/api-decisions.md, "Templates"). */
export const templateSchema = z
  .object({ id: z.string().meta({ description: 'tpl_…' }), ...fields, created_at: timestampSchema, updated_at: timestampSchema })
  .meta({ id: 'Template' });

export const templateVersionSchema = z.object({ ...fields, created_at: timestampSchema }).meta({ id: 'TemplateVersion' });

export const renderedTemplateSchema = z
  .object({
    subject: z.string(),
    html: z.string().nullable(),
    text: z.string().meta({ description: "The template's own text part rendered, or the plain part generated from the rendered HTML." }),
  })
  .meta({ id: 'RenderedTemplate' });

const fieldsOf = (t: Template | TemplateVersion) => ({ name: t.name, alias: t.alias, version: t.version, subject: t.subject, html: t.html, text: t.text, variables: t.variables });

export const serializeTemplate = (t: Template): z.infer<typeof templateSchema> => ({
  id: t.id,
  ...fieldsOf(t),
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});

export const serializeTemplateVersion = (v: TemplateVersion): z.infer<typeof templateVersionSchema> => ({ ...fieldsOf(v), created_at: v.createdAt.toISOString() });
