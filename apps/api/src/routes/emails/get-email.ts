import { defineRoute } from '../../http/route';
import { emailDetailSchema, toEmailDetail } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { requireEmailDetail } from './email-lookup';

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
    sendJson(res, 200, toEmailDetail(await requireEmailDetail(deps, { accountId: key.accountId, test: key.test }, params.id!)));
  },
});
