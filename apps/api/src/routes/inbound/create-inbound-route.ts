import { AppError, validationError } from '@mailer/domain';
import { createInboundRoute, inboundRouteSchema, toInboundRoute } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { assertRouteWebhook } from './inbound-lookup';
import { createInboundRouteBodySchema } from './inbound-route.schema';

export const createInboundRouteRoute = defineRoute({
  method: 'post',
  path: '/v1/inbound/routes',
  operationId: 'createInboundRoute',
  tag: 'inbound',
  summary: 'Receive mail for an address, or for every address of a host.',
  description:
    'The host must be one of your domains or its receiving subdomain. Mail is received once the domain has receiving on ' +
    '(PATCH /v1/domains/{id}) and its ownership and receiving components are verified; an exact address wins over `*`. ' +
    'Another active route with the same pattern is 409 inbound_route_already_exists.',
  auth: { kind: 'management', scope: 'inbound:write' },
  errors: ['inbound_route_already_exists'],
  example: { pattern: 'support@example.com' },
  body: createInboundRouteBodySchema,
  responses: { 201: { description: 'Created.', schema: inboundRouteSchema, headers: ['Location'] } },
  async handle({ res, deps, key, body }) {
    const input = body();
    await assertRouteWebhook(deps.db, key.accountId, input.webhook_id);
    const created = await createInboundRoute(deps.db, { accountId: key.accountId, pattern: input.pattern, webhookId: input.webhook_id ?? null, enabled: input.enabled ?? true, now: deps.now() });
    if (created.kind === 'no_such_domain') throw validationError([{ path: 'pattern', message: `${input.pattern.host} is not a domain of this account or its receiving subdomain` }]);
    if (created.kind === 'already_exists') throw new AppError('inbound_route_already_exists', `An inbound route for ${input.pattern.pattern} already exists.`);
    res.location(`/v1/inbound/routes/${created.route.id}`);
    sendJson(res, 201, toInboundRoute(created.route));
  },
});
