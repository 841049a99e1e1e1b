import { listSenders } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { decodeCursor, pageQuerySchema, pageResponseSchema, toPage } from '../../http/pagination';
import { requireDomain } from '../domains/domain-lookup';
import { senderSchema } from './sender.schema';
import { serializeSender } from './serialize-sender';
import { sendJson } from '../../http/respond';

export const listSendersRoute = defineRoute({
  method: 'get',
  path: '/v1/domains/:id/senders',
  operationId: 'listSenders',
  tag: 'senders',
  summary: "List the domain's senders, newest first.",
  description: 'Deleted senders are not listed. A cursor is valid only for the domain that issued it.',
  auth: { kind: 'management', scope: 'senders:read' },
  errors: ['domain_not_found'],
  query: pageQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(senderSchema) } },
  async handle({ res, deps, key, params, query }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    const scope = `senders:${domain.id}`;
    const position = decodeCursor(deps.cursors, scope, query.cursor);
    const rows = await listSenders(deps.db, domain.id, position, query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeSender), next_cursor: page.nextCursor });
  },
});
