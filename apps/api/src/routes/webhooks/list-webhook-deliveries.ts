import { listWebhookDeliveries } from '@mailer/operations';
import { decodeCursor, pageQuerySchema, pageResponseSchema, toPage } from '../../http/pagination';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireWebhook } from './webhook-lookup';
import { serializeWebhookDelivery, webhookDeliverySchema } from './webhook.schema';

export const listWebhookDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/v1/webhooks/:id/deliveries',
  operationId: 'listWebhookDeliveries',
  tag: 'webhooks',
  summary: "An endpoint's deliveries, newest first, with their attempts.",
  description: '`next_attempt_at` is set while a delivery is pending.',
  auth: { kind: 'management', scope: 'webhooks:read' },
  errors: ['webhook_not_found'],
  query: pageQuerySchema,
  responses: { 200: { description: 'One page.', schema: pageResponseSchema(webhookDeliverySchema) } },
  async handle({ res, deps, key, params, query }) {
    const endpoint = await requireWebhook(deps.db, key.accountId, params.id!);
    const scope = `webhook-deliveries:${endpoint.id}`;
    const rows = await listWebhookDeliveries(deps.db, endpoint.id, decodeCursor(deps.cursors, scope, query.cursor), query.limit + 1);
    const page = toPage(deps.cursors, scope, rows, query.limit);
    sendJson(res, 200, { data: page.rows.map(serializeWebhookDelivery), next_cursor: page.nextCursor });
  },
});
