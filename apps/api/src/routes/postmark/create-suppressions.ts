import { addSuppression } from '@mailer/db';
import { parseMailbox } from '@mailer/domain';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { postmarkSuppressionChangeSchema, postmarkSuppressionResultsSchema, requireOutboundStream } from './postmark-suppressions';

export const postmarkCreateSuppressionsRoute = defineRoute({
  method: 'post',
  path: '/postmark/message-streams/:stream/suppressions',
  operationId: 'postmarkCreateSuppressions',
  tag: 'postmark',
  summary: 'Suppress addresses (POST /v1/suppressions for each), each with its own Status.',
  description: 'A management key with suppressions:write, as /v1 asks. An address already suppressed is Suppressed as it stands.',
  auth: { kind: 'management', scope: 'suppressions:write' },
  dialect: postmarkDialect,
  body: postmarkSuppressionChangeSchema,
  responses: { 200: { description: 'One result per address.', schema: postmarkSuppressionResultsSchema } },
  async handle({ res, deps, key, params, body }) {
    requireOutboundStream(params.stream!);
    const results = [];
    for (const { EmailAddress } of body().Suppressions) {
      const mailbox = parseMailbox(EmailAddress);
      if (!mailbox) {
        results.push({ EmailAddress, Status: 'Failed', Message: 'not an email address' });
        continue;
      }
      await addSuppression(deps.db, key.accountId, { email: mailbox.address, emailKey: mailbox.key, reason: 'manual', at: deps.now() });
      results.push({ EmailAddress, Status: 'Suppressed', Message: null });
    }
    sendJson(res, 200, { Suppressions: results });
  },
});
