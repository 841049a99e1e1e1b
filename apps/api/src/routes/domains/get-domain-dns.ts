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
  summary: 'The DNS records to publish for ownership, DKIM, DMARC and the return path.',
  description:
    'Makes no network request. Any valid DMARC record at `_dmarc.<domain>` or at the organizational domain (RFC 7489) counts; ' +
    'the value offered is a monitoring-only policy. The return-path host `bounces.<domain>` takes an MX record naming the ' +
    "service's inbound host and an SPF record authorizing the service's outbound addresses; once both are verified, " +
    'bounces and complaints reach the service. Readiness needs only ownership, DKIM and DMARC.',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The records.', schema: domainDnsSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, { records: requiredDnsRecords(await requireDomain(deps.db, key.accountId, params.id!), deps.config.returnPath) });
  },
});
