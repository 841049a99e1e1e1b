import { domainCompliance } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain } from './domain-lookup';
import { domainComplianceSchema } from './get-domain-compliance.schema';

export const getDomainComplianceRoute = defineRoute({
  method: 'get',
  path: '/v1/domains/:id/compliance',
  operationId: 'getDomainCompliance',
  tag: 'domains',
  summary: "The domain against Gmail's, Yahoo's and Microsoft's published sender requirements.",
  description:
    'Each requirement a provider publishes is `pass`, `fail` or `unknown` with the reason. SPF (of the return-path host once ' +
    "verified, else of the domain) and the reverse DNS of the account's egress addresses are looked up now, the reverse " +
    'lookups under one 9 s deadline; DKIM and DMARC are as the last check-dns found them; TLS is from the mail each provider ' +
    "accepted in the last 24 h, and the complaint rate from the account's reputation counts of the last 24 h (0.1 % and 0.3 %).",
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The report.', schema: domainComplianceSchema } },
  async handle({ res, deps, key, params }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    sendJson(res, 200, { domain_id: domain.id, providers: await domainCompliance(deps, domain) });
  },
});
