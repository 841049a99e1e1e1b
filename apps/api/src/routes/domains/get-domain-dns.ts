import { requiredDnsRecords } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { requireDomain } from './domain-lookup';
import { domainDnsSchema } from './get-domain-dns.schema';
import { sendJson } from '../../http/respond';

export const getDomainDnsRoute = defineRoute({
  method: 'get',
  path: '/v1/domains/:id/dns',
  operationId: 'getDomainDns',
  tag: 'domains',
  summary: 'The DNS records to publish for ownership, DKIM and DMARC.',
  description:
    'Makes no network request. Any valid DMARC record at `_dmarc.<domain>` or at the organizational domain (RFC 7489) counts; ' +
    'the value offered is a monitoring-only policy.',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The records.', schema: domainDnsSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, { records: requiredDnsRecords(await requireDomain(deps.db, key.accountId, params.id!)) });
  },
});
