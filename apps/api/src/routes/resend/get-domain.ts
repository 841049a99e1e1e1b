import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomainView } from '../domains/domain-lookup';
import { domainDnsRecords } from '../domains/domain-dns-records';
import { serializeDomain } from '@mailer/operations';
import { resendDialect } from './resend-dialect';
import { resendDomainSchema, toResendDomain } from './resend-domain.representation';

export const resendGetDomainRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'get',
  path: '/resend/domains/:id',
  operationId: 'resendGetDomain',
  summary: 'A domain with its records, as Resend shows one (GET /v1/domains/{id} and its /dns).',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The domain.', schema: resendDomainSchema } },
  async handle({ res, deps, key, params }) {
    const view = await requireDomainView(deps.db, key.accountId, params.id!);
    sendJson(res, 200, toResendDomain(serializeDomain(view), (await domainDnsRecords(deps, view)).records));
  },
});
