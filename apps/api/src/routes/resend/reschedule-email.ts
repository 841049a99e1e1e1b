import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { rescheduleOrRefuse } from '../emails/email-lookup';
import { rescheduleEmailBodySchema } from '../emails/reschedule-email.schema';
import { resendEmailRefSchema } from './cancel-email';
import { resendDialect } from './resend-dialect';

export const resendRescheduleEmailRoute = defineRoute({
  method: 'patch',
  path: '/resend/emails/:id',
  operationId: 'resendRescheduleEmail',
  tag: 'resend',
  summary: "Resend's update of a scheduled message: PATCH /v1/emails/{id}.",
  description: 'As /v1: `scheduled_at` checked as at intake; while none of its deliveries has started, after that 409 (`validation_error`).',
  auth: { kind: 'sending' },
  dialect: resendDialect,
  errors: ['email_not_found', 'email_not_reschedulable'],
  example: { scheduled_at: '2026-11-24T10:00:00Z' },
  body: rescheduleEmailBodySchema,
  responses: { 200: { description: 'Rescheduled.', schema: resendEmailRefSchema } },
  async handle({ res, deps, key, params, body }) {
    await rescheduleOrRefuse(deps, { accountId: key.accountId, test: key.test }, params.id!, body);
    sendJson(res, 200, { object: 'email', id: params.id! });
  },
});
