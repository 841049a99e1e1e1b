import { listTemplates } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { listTemplatesQuerySchema, serializeTemplate, templateSchema } from './template.schema';

export const listTemplatesRoute = defineRoute({
  method: 'get',
  path: '/v1/templates',
  operationId: 'listTemplates',
  tag: 'templates',
  summary: "List the account's templates, newest first.",
  description: 'Each as it now is (its latest version). Deleted templates are not listed.',
  auth: { kind: 'management', scope: 'templates:read' },
  query: listTemplatesQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(templateSchema) } },
  async handle({ res, deps, key, query }) {
    const scope = `templates:${key.accountId}`;
    const rows = await listTemplates(deps.db, key.accountId, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeTemplate), next_cursor: page.nextCursor });
  },
});
