import { domainSchema, listDomains, serializeDomain } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { listDomainsQuerySchema } from './list-domains.schema';
import { sendJson } from '../../http/respond';

export const listDomainsRoute = defineRoute({
  method: 'get',
  path: '/v1/domains',
  operationId: 'listDomains',
  tag: 'domains',
  summary: "List the account's domains, newest first.",
  description: 'Deleted domains are not listed. A cursor is valid only for the account and external_id filter that issued it.',
  auth: { kind: 'management', scope: 'domains:read' },
  query: listDomainsQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(domainSchema) } },
  async handle({ res, deps, key, query }) {
    // The filter is part of the list's identity: a cursor from the unfiltered list is not valid for a filtered one.
    const scope = query.external_id === undefined ? `domains:${key.accountId}` : `domains:${key.accountId}:external_id=${query.external_id}`;
    const position = decodeCursor(deps.cursors, scope, query.cursor);
    const rows = await listDomains(deps.db, key.accountId, { externalId: query.external_id, position, limit: query.limit + 1 });
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeDomain), next_cursor: page.nextCursor });
  },
});
