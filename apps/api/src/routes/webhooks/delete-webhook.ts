import { deleteWebhookEndpoint } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { webhookNotFound } from './webhook-lookup';

export const deleteWebhookRoute = defineRoute({
  method: 'delete',
  path: '/v1/webhooks/:id',
  operationId: 'deleteWebhook',
  tag: 'webhooks',
  summary: 'Delete a webhook endpoint; its pending deliveries are never sent.',
  description: 'Afterwards the endpoint is webhook_not_found everywhere.',
  auth: { kind: 'management', scope: 'webhooks:write' },
  errors: ['webhook_not_found'],
  responses: { 204: { description: 'Deleted.' } },
  async handle({ res, deps, key, params }) {
    if (!(await deleteWebhookEndpoint(deps.db, key.accountId, params.id!, deps.now()))) throw webhookNotFound();
    res.status(204).end();
  },
});
