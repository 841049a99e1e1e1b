import { listWebhookEndpoints } from '@mailer/operations';
import { decodeCursor, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { listWebhooksQuerySchema, serializeWebhook, webhookSchema } from './webhook.schema';
import { shownUrl } from './webhook-target';

export const listWebhooksRoute = defineRoute({
  method: 'get',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  tag: 'webhooks',
  summary: "List the account's webhook endpoints, newest first.",
  description: 'Deleted endpoints are not listed.',
  auth: { kind: 'management', scope: 'webhooks:read' },
  query: listWebhooksQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(webhookSchema) } },
  async handle({ res, deps, key, query }) {
    const scope = `webhooks:${key.accountId}`;
    const rows = await listWebhookEndpoints(deps.db, key.accountId, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map((w) => serializeWebhook(w, shownUrl(deps, w))), next_cursor: page.nextCursor });
  },
});
