import { findEmailDetail } from '@mailer/db';
import { AppError } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { emailDetailSchema, toEmailDetail } from '@mailer/operations';
import { sendJson } from '../../http/respond';

export const getEmailRoute = defineRoute({
  method: 'get',
  path: '/v1/emails/:id',
  operationId: 'getEmail',
  tag: 'emails',
  summary: "A message's safe metadata: deliveries, attempts, events, attachments, timestamps.",
  description: 'Never the body, attachment content, raw MIME, BCC addresses, MX hosts or job ids.',
  auth: { kind: 'sending' },
  errors: ['email_not_found'],
  responses: { 200: { description: 'The message.', schema: emailDetailSchema } },
  async handle({ res, deps, key, params }) {
    const detail = await findEmailDetail(deps.db, { accountId: key.accountId, test: key.test }, params.id!);
    if (!detail) throw new AppError('email_not_found', 'No such email in this account.');
    sendJson(res, 200, toEmailDetail(detail));
  },
});
