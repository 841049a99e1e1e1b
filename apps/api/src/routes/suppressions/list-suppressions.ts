import { listSuppressions } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { listSuppressionsQuerySchema, serializeSuppression, suppressionSchema } from './suppression.schema';

export const listSuppressionsRoute = defineRoute({
  method: 'get',
  path: '/v1/suppressions',
  operationId: 'listSuppressions',
  tag: 'suppressions',
  summary: "List the account's suppressed addresses, newest first.",
  description: 'A cursor is valid only for the account and the `email` and `stream` filters that issued it.',
  auth: { kind: 'management', scope: 'suppressions:read' },
  query: listSuppressionsQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(suppressionSchema) } },
  async handle({ res, deps, key, query }) {
    const filters = [...(query.email === undefined ? [] : [`email=${query.email.key}`]), ...(query.stream === undefined ? [] : [`stream=${query.stream}`])];
    const scope = [`suppressions:${key.accountId}`, ...filters].join(':');
    const position = decodeCursor(deps.cursors, scope, query.cursor);
    const rows = await listSuppressions(deps.db, key.accountId, { emailKey: query.email?.key, stream: query.stream, position, limit: query.limit + 1 });
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeSuppression), next_cursor: page.nextCursor });
  },
});
