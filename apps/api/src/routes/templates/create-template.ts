import { createTemplate } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { templateFields, writtenTemplate } from './template-lookup';
import { createTemplateBodySchema, serializeTemplate, templateSchema } from './template.schema';

export const createTemplateRoute = defineRoute({
  method: 'post',
  path: '/v1/templates',
  operationId: 'createTemplate',
  tag: 'templates',
  summary: 'Store a template as its version 1.',
  description:
    'Each part is Mustache; a part that does not parse is a 422 whose detail names its line and column. At least one of html and text ' +
    "is needed. An account with as many templates as its plan's max_templates (100 by default) gets 409 template_limit_exceeded; an alias " +
    'another template has, 409 template_alias_conflict.',
  auth: { kind: 'management', scope: 'templates:write' },
  errors: ['template_limit_exceeded', 'template_alias_conflict'],
  example: {
    name: 'Receipt',
    alias: 'receipt',
    subject: 'Your receipt for order {{order.number}}',
    html: '<p>Thanks, {{name}}.</p><ul>{{#items}}<li>{{title}}: {{price}}</li>{{/items}}</ul>',
  },
  body: createTemplateBodySchema,
  responses: { 201: { description: 'Created.', schema: templateSchema, headers: ['Location'] } },
  async handle({ res, deps, key, body }) {
    const input = body();
    const fields = templateFields({ name: input.name, alias: input.alias ?? null, subject: input.subject, html: input.html ?? null, text: input.text ?? null });
    const template = writtenTemplate(await createTemplate(deps.db, key.accountId, fields, deps.now()));
    res.location(`/v1/templates/${template.id}`);
    sendJson(res, 201, serializeTemplate(template));
  },
});
