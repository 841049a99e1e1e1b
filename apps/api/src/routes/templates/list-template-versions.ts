import { listTemplateVersions } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireTemplate } from './template-lookup';
import { listTemplatesQuerySchema, serializeTemplateVersion, templateVersionSchema } from './template.schema';

export const listTemplateVersionsRoute = defineRoute({
  method: 'get',
  path: '/v1/templates/:id/versions',
  operationId: 'listTemplateVersions',
  tag: 'templates',
  summary: "A template's versions (by id or alias), newest first.",
  description: 'Each as it was written; the version a message names (`template.version` of GET /v1/emails/{id}) is among them.',
  auth: { kind: 'management', scope: 'templates:read' },
  errors: ['template_not_found'],
  query: listTemplatesQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(templateVersionSchema) } },
  async handle({ res, deps, key, params, query }) {
    const template = await requireTemplate(deps.db, key.accountId, params.id!);
    const scope = `template-versions:${template.id}`;
    const rows = await listTemplateVersions(deps.db, template.id, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeTemplateVersion), next_cursor: page.nextCursor });
  },
});
