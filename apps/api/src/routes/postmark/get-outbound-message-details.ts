import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { requireEmailDetail } from '../emails/email-lookup';
import { postmarkDialect } from './postmark-dialect';
import { postmarkMessageDetailsSchema, toPostmarkMessageDetails } from './postmark-message.representation';

export const postmarkGetOutboundMessageDetailsRoute = defineRoute({
  method: 'get',
  path: '/postmark/messages/outbound/:id/details',
  operationId: 'postmarkGetOutboundMessageDetails',
  tag: 'postmark',
  summary: "A message as Postmark details one, with its delivery events (GET /v1/emails/{id}).",
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  errors: ['email_not_found'],
  responses: { 200: { description: 'The message.', schema: postmarkMessageDetailsSchema } },
  async handle({ res, deps, key, params }) {
    sendJson(res, 200, toPostmarkMessageDetails(await requireEmailDetail(deps, { accountId: key.accountId, test: key.test }, params.id!)));
  },
});
