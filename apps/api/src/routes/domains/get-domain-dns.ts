import { defineRoute } from '../../http/route';
import { requireDomain } from './domain-lookup';
import { domainDnsRecords } from './domain-dns-records';
import { domainDnsSchema } from './get-domain-dns.schema';
import { sendJson } from '../../http/respond';

export const getDomainDnsRoute = defineRoute({
  method: 'get',
  path: '/v1/domains/:id/dns',
  operationId: 'getDomainDns',
  tag: 'domains',
  summary: 'The DNS records to publish for ownership, DKIM (RSA and Ed25519), DMARC and the return path.',
  description:
    'Makes no network request. Any valid DMARC record at `_dmarc.<domain>` or at the organizational domain (RFC 7489) counts; ' +
    'the value offered is a monitoring-only policy. The return-path host `bounces.<domain>` takes an MX record naming the ' +
    "service's inbound host and an SPF record authorizing the service's outbound addresses; once both are verified, " +
    'bounces and complaints reach the service. Readiness needs only ownership, DKIM (the RSA record, purpose `dkim`) and DMARC. ' +
    'Every domain has two DKIM keys on separate selectors: RSA (`dkim`) and Ed25519 (`dkim_ed25519`, RFC 8463), whose ' +
    'signature is added once its record verifies. DKIM records carry `state`: `active` (signing), `pending` (a rotation: ' +
    'publish it; signing switches once check-dns verifies it), `retiring` (replaced; keep it until `retiring_until`, seven days, ' +
    'while mail signed with it may be in flight) and `retired` (safe to remove).',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The records.', schema: domainDnsSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, await domainDnsRecords(deps, await requireDomain(deps.db, key.accountId, params.id!)));
  },
});
