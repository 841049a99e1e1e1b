import { emailDetailSchema, findEmailDetail, toEmailDetail } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { rescheduleOrRefuse } from './email-lookup';
import { rescheduleEmailBodySchema } from './reschedule-email.schema';

export const rescheduleEmailRoute = defineRoute({
  method: 'patch',
  path: '/v1/emails/:id',
  operationId: 'rescheduleEmail',
  tag: 'emails',
  summary: 'Give a message none of whose deliveries has started a new scheduled time.',
  description:
    'While the message could be canceled (no delivery leased by a delivery daemon, none with an attempt, some still queued), every ' +
    'queued delivery becomes due at the new scheduled_at (at once for a past instant), later or earlier than before; the answer is ' +
    'the updated message, showing the new scheduled_at. scheduled_at is checked as at intake (RFC 3339, at most 7 days ahead: 422). ' +
    'Once a delivery has started, or nothing is left waiting: 409 email_not_reschedulable.',
  auth: { kind: 'sending' },
  errors: ['email_not_found', 'email_not_reschedulable'],
  example: { scheduled_at: '2026-11-24T10:00:00Z' },
  body: rescheduleEmailBodySchema,
  responses: { 200: { description: 'Rescheduled: the message as it now is.', schema: emailDetailSchema } },
  async handle({ res, deps, key, params, body }) {
    const owner = { accountId: key.accountId, test: key.test };
    await rescheduleOrRefuse(deps, owner, params.id!, body);
    sendJson(res, 200, toEmailDetail((await findEmailDetail(deps.db, owner, params.id!))!));
  },
});
