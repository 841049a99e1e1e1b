import { findEmailDetail, listEmails } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { resendDialect } from './resend-dialect';
import { resendEmailObjectSchema, toResendEmail } from './resend-email.representation';
import { resendListSchema, resendPage, resendPageQuerySchema, resendPosition } from './resend-page';

export const resendListEmailsRoute = defineRoute({
  method: 'get',
  path: '/resend/emails',
  operationId: 'resendListEmails',
  tag: 'resend',
  summary: "The account's messages as Resend lists them, newest first (the list of GET /v1/emails).",
  auth: { kind: 'sending' },
  dialect: resendDialect,
  query: resendPageQuerySchema,
  errors: ['invalid_cursor'],
  responses: { 200: { description: 'One page.', schema: resendListSchema(resendEmailObjectSchema, 'ResendEmailList') } },
  async handle({ res, deps, key, query }) {
    const owner = { accountId: key.accountId, test: key.test };
    const position = await resendPosition(query, async (id) => (await findEmailDetail(deps.db, owner, id))?.email);
    const page = resendPage(await listEmails(deps.db, owner, {}, position, query.limit + 1), query.limit, position);
    const now = deps.now();
    sendJson(res, 200, { object: 'list', has_more: page.has_more, data: page.rows.map((e) => toResendEmail(e, now)) });
  },
});
