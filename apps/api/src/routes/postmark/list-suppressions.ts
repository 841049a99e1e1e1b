import { z } from 'zod';
import { listSuppressions } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { POSTMARK_MAX_WINDOW } from './postmark-page';
import { postmarkSuppressionSchema, requireOutboundStream, toPostmarkSuppression } from './postmark-suppressions';

export const postmarkListSuppressionsRoute = defineRoute({
  method: 'get',
  path: '/postmark/message-streams/:stream/suppressions/dump',
  operationId: 'postmarkListSuppressions',
  tag: 'postmark',
  summary: "Postmark's suppression dump: the account's suppressions (GET /v1/suppressions), newest first.",
  description: 'A management key with suppressions:read, as /v1 asks. At most the 10,000 newest entries.',
  auth: { kind: 'management', scope: 'suppressions:read' },
  dialect: postmarkDialect,
  responses: { 200: { description: 'The list.', schema: z.object({ Suppressions: z.array(postmarkSuppressionSchema) }).meta({ id: 'PostmarkSuppressionDump' }) } },
  async handle({ res, deps, key, params }) {
    requireOutboundStream(params.stream!);
    const rows = await listSuppressions(deps.db, key.accountId, { limit: POSTMARK_MAX_WINDOW });
    sendJson(res, 200, { Suppressions: rows.map(toPostmarkSuppression) });
  },
});
