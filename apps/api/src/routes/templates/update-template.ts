import { updateTemplate } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireTemplate, templateFields, writtenTemplate } from './template-lookup';
import { serializeTemplate, templateSchema, updateTemplateBodySchema } from './template.schema';

export const updateTemplateRoute = defineRoute({
  method: 'patch',
  path: '/v1/templates/:id',
  operationId: 'updateTemplate',
  tag: 'templates',
  summary: 'Change a template (by id or alias): every change makes a new version.',
  description:
    'The members given replace the current ones (`alias`, `html` or `text` null removes it); the result must be a whole template as on ' +
    'creation. A request that changes nothing makes no version and leaves `updated_at` alone. Messages already accepted keep the version ' +
    'they were rendered from.',
  auth: { kind: 'management', scope: 'templates:write' },
  errors: ['template_not_found', 'template_alias_conflict'],
  example: { subject: 'Your receipt for order {{order.number}} from {{shop}}' },
  body: updateTemplateBodySchema,
  responses: { 200: { description: 'The template as it now is.', schema: templateSchema } },
  async handle({ res, deps, key, params, body }) {
    const template = await requireTemplate(deps.db, key.accountId, params.id!);
    const changes = body();
    const fields = templateFields({
      name: changes.name ?? template.name,
      alias: changes.alias === undefined ? template.alias : changes.alias,
      subject: changes.subject ?? template.subject,
      html: changes.html === undefined ? template.html : changes.html,
      text: changes.text === undefined ? template.text : changes.text,
    });
    sendJson(res, 200, serializeTemplate(writtenTemplate(await updateTemplate(deps.db, template, fields, deps.now()))));
  },
});
