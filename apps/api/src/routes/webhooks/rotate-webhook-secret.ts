import { z } from 'zod';
import { rotateWebhookSecret } from '@mailer/operations';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireWebhook, webhookNotFound } from './webhook-lookup';

/** How long the previous secret keeps signing beside the new one (docs/api-decisions.md, "Webhooks"). */
const OVERLAP_MS = 24 * 3_600_000;

export const rotateWebhookSecretRoute = defineRoute({
  method: 'post',
  path: '/v1/webhooks/:id/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tag: 'webhooks',
  summary: 'Issue a new signing secret.',
  description: 'For 24 hours each delivery carries two signatures, by the previous secret and by the new one. No body is needed; `{}` is accepted.',
  auth: { kind: 'management', scope: 'webhooks:write' },
  errors: ['webhook_not_found'],
  example: {},
  body: z.strictObject({}),
  responses: { 200: { description: 'The new secret, shown only here.', schema: z.object({ secret: z.string() }).meta({ id: 'WebhookSecret' }) } },
  async handle({ res, deps, key, params, body }) {
    const endpoint = await requireWebhook(deps.db, key.accountId, params.id!);
    body();
    const secret = newWebhookSecret();
    const now = deps.now();
    const sealed = seal(deps.config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret);
    if (!(await rotateWebhookSecret(deps.db, endpoint, sealed, new Date(now.getTime() + OVERLAP_MS), now))) throw webhookNotFound();
    sendJson(res, 200, { secret });
  },
});
