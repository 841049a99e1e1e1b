import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireEmailDetail } from '../emails/email-lookup';
import { resendDialect } from './resend-dialect';
import { resendEmailObjectSchema, toResendEmail } from './resend-email.representation';

export const resendGetEmailRoute = defineRoute({
  method: 'get',
  path: '/resend/emails/:id',
  operationId: 'resendGetEmail',
  tag: 'resend',
  summary: "Resend's email object of a message (GET /v1/emails/{id} has its deliveries).",
  auth: { kind: 'sending' },
  dialect: resendDialect,
  errors: ['email_not_found'],
  responses: { 200: { description: 'The message.', schema: resendEmailObjectSchema } },
  async handle({ res, deps, key, params }) {
    const detail = await requireEmailDetail(deps, { accountId: key.accountId, test: key.test }, params.id!);
    sendJson(res, 200, toResendEmail(detail.email, deps.now()));
  },
});
