import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { emailDetailSchema, findEmailDetail, toEmailDetail } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { cancelOrRefuse } from './email-lookup';

export const cancelEmailRoute = defineRoute({
  method: 'post',
  path: '/v1/emails/:id/cancel',
  operationId: 'cancelEmail',
  tag: 'emails',
  summary: 'Cancel a message none of whose deliveries has started.',
  description:
    'While no delivery has started (none leased by a delivery daemon, none with an attempt), every queued delivery ends failed with ' +
    'cause canceled, with an email.failed webhook each; the answer is the updated message. A scheduled message can be canceled until ' +
    'its time comes. Once a delivery has started, or nothing is left to cancel: 409 email_not_cancelable. No body is needed; `{}` is accepted.',
  auth: { kind: 'sending' },
  errors: ['email_not_found', 'email_not_cancelable'],
  example: {},
  body: z.strictObject({}),
  responses: { 200: { description: 'Canceled: the message as it now is.', schema: emailDetailSchema } },
  async handle({ res, deps, key, params, body }) {
    await cancelOrRefuse(deps, { accountId: key.accountId, test: key.test }, params.id!, body);
    const detail = await findEmailDetail(deps.db, { accountId: key.accountId, test: key.test }, params.id!);
    sendJson(res, 200, toEmailDetail(detail!));
  },
});
