import { changeDomainSettings } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain } from '../domains/domain-lookup';
import { resendDialect } from './resend-dialect';
import { resendDomainRefSchema } from './resend-domain.representation';
import { resendUpdateDomainBodySchema, trackingChange } from './resend-domain.schema';

export const resendUpdateDomainRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'patch',
  path: '/resend/domains/:id',
  operationId: 'resendUpdateDomain',
  summary: "Resend's domain update: PATCH /v1/domains/{id} with `tracking` (a management key).",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  body: resendUpdateDomainBodySchema,
  responses: { 200: { description: 'Updated.', schema: resendDomainRefSchema } },
  async handle({ res, deps, key, params, body }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    await changeDomainSettings(deps.db, domain, trackingChange(body()), deps.now());
    sendJson(res, 200, { object: 'domain', id: domain.id });
  },
});
