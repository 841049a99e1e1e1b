import { updateWebhookEndpoint } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireWebhook, webhookNotFound } from './webhook-lookup';
import { serializeWebhook, updateWebhookBodySchema, webhookSchema } from './webhook.schema';
import { changedWebhookTarget, shownUrl } from './webhook-target';

export const updateWebhookRoute = defineRoute({
  method: 'patch',
  path: '/v1/webhooks/:id',
  operationId: 'updateWebhook',
  tag: 'webhooks',
  summary: 'Change a webhook endpoint: url, format, events, description, status.',
  description: 'A request that changes nothing changes nothing, `updated_at` included. Enabling it again restarts its failure count.',
  auth: { kind: 'management', scope: 'webhooks:write' },
  errors: ['webhook_not_found'],
  example: { status: 'disabled' },
  body: updateWebhookBodySchema,
  responses: { 200: { description: 'The endpoint as it now is.', schema: webhookSchema } },
  async handle({ res, deps, key, params, body }) {
    const endpoint = await requireWebhook(deps.db, key.accountId, params.id!);
    const { url, ...changes } = body();
    const target = changedWebhookTarget(deps, endpoint, url, changes.format ?? endpoint.format);
    const updated = await updateWebhookEndpoint(deps.db, endpoint, { ...changes, ...target }, deps.now());
    if (!updated) throw webhookNotFound();
    sendJson(res, 200, serializeWebhook(updated, shownUrl(deps, updated)));
  },
});
