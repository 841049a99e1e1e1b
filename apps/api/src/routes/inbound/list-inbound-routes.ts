import { inboundRouteSchema, listInboundRoutes, toInboundRoute } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { listInboundRoutesQuerySchema } from './inbound-route.schema';

export const listInboundRoutesRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/routes',
  operationId: 'listInboundRoutes',
  tag: 'inbound',
  summary: "List the account's inbound routes, newest first.",
  auth: { kind: 'management', scope: 'inbound:read' },
  query: listInboundRoutesQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(inboundRouteSchema) } },
  async handle({ res, deps, key, query }) {
    const scope = `inbound-routes:${key.accountId}`;
    const rows = await listInboundRoutes(deps.db, key.accountId, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(toInboundRoute), next_cursor: page.nextCursor });
  },
});
