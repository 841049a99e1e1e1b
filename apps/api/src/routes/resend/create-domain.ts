import { createDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain } from '../domains/domain-lookup';
import { domainDnsRecords } from '../domains/domain-dns-records';
import { resendDialect } from './resend-dialect';
import { resendDomainSchema, toResendDomain } from './resend-domain.representation';
import { resendCreateDomainBodySchema } from './create-domain.schema';

export const resendCreateDomainRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'post',
  path: '/resend/domains',
  operationId: 'resendCreateDomain',
  summary: "Resend's domain create: POST /v1/domains (a management key).",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_already_exists', 'external_id_conflict', 'domain_limit_exceeded'],
  body: resendCreateDomainBodySchema,
  responses: { 200: { description: 'Created (or the existing domain of this name, as /v1 retries).', schema: resendDomainSchema } },
  async handle({ res, deps, key, body }) {
    const outcome = await createDomain(deps.db, deps.config.encryptionKey, key.accountId, { name: body().name, externalId: null }, deps.now);
    const records = (await domainDnsRecords(deps, await requireDomain(deps.db, key.accountId, outcome.domain.id))).records;
    sendJson(res, 200, toResendDomain(outcome.domain, records));
  },
});
