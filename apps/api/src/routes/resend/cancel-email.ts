import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { cancelOrRefuse } from '../emails/email-lookup';
import { resendDialect } from './resend-dialect';

export const resendEmailRefSchema = z.object({ object: z.literal('email'), id: z.string() }).meta({ id: 'ResendEmailRef' });

export const resendCancelEmailRoute = defineRoute({
  method: 'post',
  path: '/resend/emails/:id/cancel',
  operationId: 'resendCancelEmail',
  tag: 'resend',
  summary: "Resend's cancel of a scheduled message: POST /v1/emails/{id}/cancel.",
  description: 'As /v1: while none of its deliveries has started; after that 409 (`validation_error`).',
  auth: { kind: 'sending' },
  dialect: resendDialect,
  errors: ['email_not_found', 'email_not_cancelable'],
  responses: { 200: { description: 'Canceled.', schema: resendEmailRefSchema } },
  async handle({ res, deps, key, params }) {
    await cancelOrRefuse(deps, { accountId: key.accountId, test: key.test }, params.id!);
    sendJson(res, 200, { object: 'email', id: params.id! });
  },
});
