import { inboundEmailSummarySchema, listInboundEmails, toInboundEmailSummary } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { inboundListFilters, inboundListScope, listInboundEmailsQuerySchema } from './list-inbound-emails.schema';

export const listInboundEmailsRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/emails',
  operationId: 'listInboundEmails',
  tag: 'inbound',
  summary: 'Received messages, newest first.',
  description: 'Kept for RETENTION_DAYS. Keyset-paginated as every list; a cursor is valid only with the same filters.',
  auth: { kind: 'management', scope: 'inbound:read' },
  query: listInboundEmailsQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(inboundEmailSummarySchema) } },
  async handle({ res, deps, key, query }) {
    const filters = inboundListFilters(query);
    const scope = inboundListScope(key.accountId, filters);
    const rows = await listInboundEmails(deps.db, key.accountId, filters, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(toInboundEmailSummary), next_cursor: page.nextCursor });
  },
});
