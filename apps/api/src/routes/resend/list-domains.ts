import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { findDomainView, listDomains, serializeDomain } from '@mailer/operations';
import { resendDialect } from './resend-dialect';
import { resendDomainSchema, toResendDomain } from './resend-domain.representation';
import { resendListSchema, resendPage, resendPageQuerySchema, resendPosition } from './resend-page';

export const resendListDomainsRoute = defineRoute({
  tag: 'resend',
  dialect: resendDialect,
  method: 'get',
  path: '/resend/domains',
  operationId: 'resendListDomains',
  summary: "The account's domains as Resend lists them (GET /v1/domains).",
  auth: { kind: 'management', scope: 'domains:read' },
  query: resendPageQuerySchema,
  errors: ['invalid_cursor'],
  responses: { 200: { description: 'One page.', schema: resendListSchema(resendDomainSchema, 'ResendDomainList') } },
  async handle({ res, deps, key, query }) {
    const position = await resendPosition(query, (id) => findDomainView(deps.db, key.accountId, id));
    const page = resendPage(await listDomains(deps.db, key.accountId, { position, limit: query.limit + 1 }), query.limit, position);
    sendJson(res, 200, { object: 'list', has_more: page.has_more, data: page.rows.map((d) => toResendDomain(serializeDomain(d))) });
  },
});
