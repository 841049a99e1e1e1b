import { findInboundEmail, listInboundEmails } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { resendDialect } from './resend-dialect';
import { resendReceivedEmailSummarySchema, toResendReceivedEmailSummary } from './resend-received-email.representation';
import { resendListSchema, resendPage, resendPageQuerySchema, resendPosition } from './resend-page';

export const resendListReceivedEmailsRoute = defineRoute({
  method: 'get',
  path: '/resend/emails/receiving',
  operationId: 'resendListReceivedEmails',
  tag: 'resend',
  summary: "Received messages as Resend's receiving API lists them, newest first (the list of GET /v1/inbound/emails).",
  description: 'A management key with `inbound:read`, as /v1.',
  auth: { kind: 'management', scope: 'inbound:read' },
  dialect: resendDialect,
  query: resendPageQuerySchema,
  errors: ['invalid_cursor'],
  responses: { 200: { description: 'One page.', schema: resendListSchema(resendReceivedEmailSummarySchema, 'ResendReceivedEmailList') } },
  async handle({ res, deps, key, query }) {
    const position = await resendPosition(query, (id) => findInboundEmail(deps.db, key.accountId, id));
    const page = resendPage(await listInboundEmails(deps.db, key.accountId, {}, position, query.limit + 1), query.limit, position);
    sendJson(res, 200, { object: 'list', has_more: page.has_more, data: page.rows.map(toResendReceivedEmailSummary) });
  },
});
