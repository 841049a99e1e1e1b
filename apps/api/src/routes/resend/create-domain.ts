import { changeDomainSettings, createDomain, serializeDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireDomain, requireDomainView } from '../domains/domain-lookup';
import { domainDnsRecords } from '../domains/domain-dns-records';
import { resendDialect } from './resend-dialect';
import { resendDomainSchema, toResendDomain } from './resend-domain.representation';
import { resendCreateDomainBodySchema, trackingChange } from './resend-domain.schema';

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
    const request = body();
    const outcome = await createDomain(deps.db, deps.config.encryptionKey, key.accountId, { name: request.name, externalId: null }, deps.now);
    const change = trackingChange(request);
    // A retry of the same create asks for the same settings, so they apply to an existing domain too.
    if (Object.values(change.tracking).some((value) => value !== undefined)) {
      await changeDomainSettings(deps.db, await requireDomain(deps.db, key.accountId, outcome.domain.id), change, deps.now());
    }
    const view = await requireDomainView(deps.db, key.accountId, outcome.domain.id);
    sendJson(res, 200, toResendDomain(serializeDomain(view), (await domainDnsRecords(deps, view)).records));
  },
});
