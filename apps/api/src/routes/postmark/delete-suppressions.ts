import { removeSuppression } from '@mailer/db';
import { parseMailbox } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { postmarkSuppressionChangeSchema, postmarkSuppressionResultsSchema, requireOutboundStream } from './postmark-suppressions';

export const postmarkDeleteSuppressionsRoute = defineRoute({
  method: 'post',
  path: '/postmark/message-streams/:stream/suppressions/delete',
  operationId: 'postmarkDeleteSuppressions',
  tag: 'postmark',
  summary: 'Remove addresses from the suppression list (DELETE /v1/suppressions/{email} for each).',
  description: 'A management key with suppressions:write, as /v1 asks. An address not on the list is Failed, with the reason.',
  auth: { kind: 'management', scope: 'suppressions:write' },
  dialect: postmarkDialect,
  body: postmarkSuppressionChangeSchema,
  responses: { 200: { description: 'One result per address.', schema: postmarkSuppressionResultsSchema } },
  async handle({ res, deps, key, params, body }) {
    requireOutboundStream(params.stream!);
    const results = [];
    for (const { EmailAddress } of body().Suppressions) {
      const mailbox = parseMailbox(EmailAddress);
      const removed = mailbox !== undefined && (await removeSuppression(deps.db, key.accountId, mailbox.key));
      results.push(removed ? { EmailAddress, Status: 'Deleted', Message: null } : { EmailAddress, Status: 'Failed', Message: 'not on the suppression list' });
    }
    sendJson(res, 200, { Suppressions: results });
  },
});
