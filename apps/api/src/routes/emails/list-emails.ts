import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { emailSummarySchema, listEmails, toEmailSummary } from '@mailer/operations';
import { listEmailsQuerySchema, listFilters, listScope } from './list-emails.schema';
import { sendJson } from '../../http/respond';

export const listEmailsRoute = defineRoute({
  method: 'get',
  path: '/v1/emails',
  operationId: 'listEmails',
  tag: 'emails',
  summary: "The account's retained messages, newest first.",
  description:
    'Keyset-paginated by (created_at, id): pass next_cursor back as `cursor`, with the same filters; a cursor is valid only for this list, ' +
    'account and filters (otherwise 400 invalid_cursor).',
  auth: { kind: 'sending' },
  query: listEmailsQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(emailSummarySchema) } },
  async handle({ res, deps, key, query }) {
    const filters = listFilters(query);
    const owner = { accountId: key.accountId, test: key.test };
    const scope = listScope(owner, filters);
    const position = decodeCursor(deps.cursors, scope, query.cursor);
    const rows = await listEmails(deps.db, owner, filters, position, query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(toEmailSummary), next_cursor: page.nextCursor });
  },
});
