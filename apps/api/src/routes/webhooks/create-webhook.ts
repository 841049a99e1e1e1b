import { createWebhookEndpoint } from '@mailer/operations';
import { AppError, newWebhookSecret, seal, WEBHOOK_EVENT_TYPES, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { newWebhookTarget, shownUrl } from './webhook-target';
import { createdWebhookSchema, createWebhookBodySchema, serializeWebhook } from './webhook.schema';

export const createWebhookRoute = defineRoute({
  method: 'post',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  tag: 'webhooks',
  summary: 'Register a webhook endpoint.',
  description:
    'Events are POSTed as JSON, signed per Standard Webhooks with the secret returned here (shown only now and on rotation). ' +
    'A 2xx within 15 s is success; anything else is retried on a schedule. An account with as many endpoints (enabled or ' +
    "disabled, not deleted) as its plan's max_webhook_endpoints (10 by default) gets 409 webhook_limit_exceeded. " +
    '`format` chooses the shape of the events: this API\'s (`default`), Resend\'s or Postmark\'s.',
  auth: { kind: 'management', scope: 'webhooks:write' },
  errors: ['webhook_limit_exceeded'],
  example: { url: 'https://app.example.com/hooks/mailer', events: ['email.bounced', 'email.failed'], description: 'Bounces to the CRM' },
  body: createWebhookBodySchema,
  responses: { 201: { description: 'Created.', schema: createdWebhookSchema, headers: ['Location'] } },
  async handle({ res, deps, key, body }) {
    const input = body();
    const secret = newWebhookSecret();
    const created = await createWebhookEndpoint(deps.db, {
      accountId: key.accountId,
      ...newWebhookTarget(deps, input.url, input.format ?? 'default'),
      format: input.format ?? 'default',
      events: input.events ?? [...WEBHOOK_EVENT_TYPES],
      description: input.description ?? null,
      secretSealed: seal(deps.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret),
      now: deps.now(),
    });
    if (created.kind === 'limit_reached') {
      const { existing, max } = created.quota;
      throw new AppError('webhook_limit_exceeded', `This account has ${existing} webhook endpoints, the most its plan allows (${max}); delete one first.`);
    }
    const { endpoint } = created;
    res.location(`/v1/webhooks/${endpoint.id}`);
    sendJson(res, 201, { ...serializeWebhook(endpoint, shownUrl(deps, endpoint)), secret });
  },
});
