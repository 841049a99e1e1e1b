import { createDomain, domainSchema } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { createDomainBodySchema } from './create-domain.schema';
import { sendJson } from '../../http/respond';

export const createDomainRoute = defineRoute({
  method: 'post',
  path: '/v1/domains',
  operationId: 'createDomain',
  tag: 'domains',
  summary: 'Add a sending domain; its DKIM keys (RSA and Ed25519) and ownership token are generated.',
  description:
    'Creating again with the same name and the same external_id is a natural retry: 200 with the existing domain. ' +
    'Otherwise an active domain of that name is 409 domain_already_exists, and an external_id held by an active domain ' +
    'of another name is 409 external_id_conflict. A deleted domain frees its name and external_id. An account with as ' +
    "many active domains as its plan's max_domains (100 by default) gets 409 domain_limit_exceeded.",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_already_exists', 'external_id_conflict', 'domain_limit_exceeded'],
  example: { name: 'example.com', external_id: 'tenant-42' },
  body: createDomainBodySchema,
  responses: {
    201: { description: 'Created.', schema: domainSchema, headers: ['Location'] },
    200: { description: 'A natural retry: the existing domain.', schema: domainSchema },
  },
  async handle({ res, deps, key, body }) {
    const input = body();
    const outcome = await createDomain(deps.db, deps.config.encryptionKey, key.accountId, { name: input.name, externalId: input.external_id ?? null }, deps.now);
    if (outcome.created) res.location(`/v1/domains/${outcome.domain.id}`);
    sendJson(res, outcome.created ? 201 : 200, outcome.domain);
  },
});
