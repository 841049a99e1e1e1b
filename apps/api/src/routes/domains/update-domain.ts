import { changeDomainSettings, domainSchema, serializeDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain, requireDomainView } from './domain-lookup';
import { updateDomainBodySchema } from './update-domain.schema';

export const updateDomainRoute = defineRoute({
  method: 'patch',
  path: '/v1/domains/:id',
  operationId: 'updateDomain',
  tag: 'domains',
  summary: 'Turn inbound mail, opens and clicks on or off for a domain, and choose the hosts they use.',
  description:
    'With `receiving: true`, GET /v1/domains/{id}/dns lists an MX record (purpose `receiving_mx`) at the domain, or at ' +
    '`receiving_subdomain`, naming the service\'s inbound host, and check-dns judges the domain\'s `receiving` component. ' +
    'Changing either makes `receiving` `not_checked` again. With `tracking.opens` or `tracking.clicks` on, it lists a CNAME ' +
    '(purpose `tracking_cname`) at `<tracking.subdomain>.<domain>` naming the service\'s tracking host, judged as the ' +
    '`tracking` component; turning tracking on or off or changing the subdomain makes it `not_checked` again. A request that ' +
    'changes nothing keeps `updated_at`.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  example: { receiving: true, receiving_subdomain: 'in.example.com', tracking: { opens: true, clicks: true, subdomain: 'track' } },
  body: updateDomainBodySchema,
  responses: { 200: { description: 'The domain as it now is.', schema: domainSchema } },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    const { receiving, receiving_subdomain: receivingSubdomain, tracking } = body();
    await changeDomainSettings(deps.db, domain, { receiving, receivingSubdomain, tracking }, deps.now());
    sendJson(res, 200, serializeDomain(await requireDomainView(deps.db, key.accountId, domain.id)));
  },
});
