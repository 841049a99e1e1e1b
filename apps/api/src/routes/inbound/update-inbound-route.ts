import { inboundRouteSchema, toInboundRoute, updateInboundRoute } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { assertRouteWebhook, inboundRouteNotFound, requireInboundRoute } from './inbound-lookup';
import { updateInboundRouteBodySchema } from './inbound-route.schema';

export const updateInboundRouteRoute = defineRoute({
  method: 'patch',
  path: '/v1/inbound/routes/:id',
  operationId: 'updateInboundRoute',
  tag: 'inbound',
  summary: 'Change an inbound route: its webhook endpoint, enabled or not.',
  description: 'A request that changes nothing changes nothing, `updated_at` included.',
  auth: { kind: 'management', scope: 'inbound:write' },
  errors: ['inbound_route_not_found'],
  example: { enabled: false },
  body: updateInboundRouteBodySchema,
  responses: { 200: { description: 'The route as it now is.', schema: inboundRouteSchema } },
  async handle({ res, deps, key, params, body }) {
    const route = await requireInboundRoute(deps.db, key.accountId, params.id!);
    const changes = body();
    await assertRouteWebhook(deps.db, key.accountId, changes.webhook_id);
    const updated = await updateInboundRoute(
      deps.db,
      route,
      { ...(changes.webhook_id !== undefined ? { webhookId: changes.webhook_id } : {}), ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}) },
      deps.now(),
    );
    if (!updated) throw inboundRouteNotFound();
    sendJson(res, 200, toInboundRoute(updated));
  },
});
