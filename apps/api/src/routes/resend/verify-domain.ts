import { checkDomainDns, domainNotFound } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain } from '../domains/domain-lookup';
import { resendDialect } from './resend-dialect';
import { resendDomainRefSchema } from './resend-domain.representation';

export const resendVerifyDomainRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'post',
  path: '/resend/domains/:id/verify',
  operationId: 'resendVerifyDomain',
  summary: "Resend's verify: POST /v1/domains/{id}/check-dns, run before the answer.",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'Checked.', schema: resendDomainRefSchema } },
  async handle({ res, deps, key, params }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    if (!(await checkDomainDns(deps.db, deps.dns, deps.config.returnPath, deps.config.encryptionKey, domain, deps.now))) throw domainNotFound();
    sendJson(res, 200, { object: 'domain', id: domain.id });
  },
});
