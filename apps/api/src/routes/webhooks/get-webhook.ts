import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireWebhook } from './webhook-lookup';
import { serializeWebhook, webhookSchema } from './webhook.schema';
import { shownUrl } from './webhook-target';

export const getWebhookRoute = defineRoute({
  method: 'get',
  path: '/v1/webhooks/:id',
  operationId: 'getWebhook',
  tag: 'webhooks',
  summary: 'One webhook endpoint (without its secret, a password in its URL masked).',
  description: 'Unknown, deleted, malformed or another account\'s ids are 404 webhook_not_found.',
  auth: { kind: 'management', scope: 'webhooks:read' },
  errors: ['webhook_not_found'],
  responses: { 200: { description: 'The endpoint.', schema: webhookSchema } },
  async handle({ res, deps, key, params }) {
    const endpoint = await requireWebhook(deps.db, key.accountId, params.id!);
    sendJson(res, 200, serializeWebhook(endpoint, shownUrl(deps, endpoint)));
  },
});
