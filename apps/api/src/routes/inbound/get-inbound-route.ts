import { inboundRouteSchema, toInboundRoute } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { requireInboundRoute } from './inbound-lookup';

export const getInboundRouteRoute = defineRoute({
  method: 'get',
  path: '/v1/inbound/routes/:id',
  operationId: 'getInboundRoute',
  tag: 'inbound',
  summary: 'Get an inbound route.',
  auth: { kind: 'management', scope: 'inbound:read' },
  errors: ['inbound_route_not_found'],
  responses: { 200: { description: 'The route.', schema: inboundRouteSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, toInboundRoute(await requireInboundRoute(deps.db, key.accountId, params.id!)));
  },
});
