import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireTemplate } from './template-lookup';
import { serializeTemplate, templateSchema } from './template.schema';

export const getTemplateRoute = defineRoute({
  method: 'get',
  path: '/v1/templates/:id',
  operationId: 'getTemplate',
  tag: 'templates',
  summary: 'A template as it now is, by id or alias.',
  auth: { kind: 'management', scope: 'templates:read' },
  errors: ['template_not_found'],
  responses: { 200: { description: 'The template.', schema: templateSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, serializeTemplate(await requireTemplate(deps.db, key.accountId, params.id!)));
  },
});
