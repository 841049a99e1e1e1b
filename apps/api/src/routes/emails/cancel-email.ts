import { z } from 'zod';
import { cancelEmail, findEmailDetail } from '@mailer/db';
import { AppError } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { emailDetailSchema, toEmailDetail } from '@mailer/operations';
import { sendJson } from '../../http/respond';

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
    const outcome = await cancelEmail(deps.db, { accountId: key.accountId, test: key.test }, params.id!, deps.now(), body);
    if (outcome === 'not_found') throw new AppError('email_not_found', 'No such email in this account.');
    if (outcome === 'not_cancelable') {
      throw new AppError('email_not_cancelable', 'A delivery of this message has started (or none is left waiting); it can no longer be canceled.');
    }
    const detail = await findEmailDetail(deps.db, { accountId: key.accountId, test: key.test }, params.id!);
    sendJson(res, 200, toEmailDetail(detail!));
  },
});
