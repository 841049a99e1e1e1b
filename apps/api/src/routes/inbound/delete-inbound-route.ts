import { deleteInboundRoute } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { inboundRouteNotFound } from './inbound-lookup';

export const deleteInboundRouteRoute = defineRoute({
  method: 'delete',
  path: '/v1/inbound/routes/:id',
  operationId: 'deleteInboundRoute',
  tag: 'inbound',
  summary: 'Delete an inbound route; its addresses are refused at RCPT from then on.',
  description: 'Mail it received stays. Afterwards the route is inbound_route_not_found everywhere.',
  auth: { kind: 'management', scope: 'inbound:write' },
  errors: ['inbound_route_not_found'],
  responses: { 204: { description: 'Deleted.' } },
  async handle({ res, deps, key, params }) {
    if (!(await deleteInboundRoute(deps.db, key.accountId, params.id!, deps.now()))) throw inboundRouteNotFound();
    res.status(204).end();
  },
});
