import { domainSchema, serializeDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { requireDomainView } from './domain-lookup';
import { sendJson } from '../../http/respond';

export const getDomainRoute = defineRoute({
  method: 'get',
  path: '/v1/domains/:id',
  operationId: 'getDomain',
  tag: 'domains',
  summary: 'Get a domain.',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The domain.', schema: domainSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, serializeDomain(await requireDomainView(deps.db, key.accountId, params.id!)));
  },
});
