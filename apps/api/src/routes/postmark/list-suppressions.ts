import { z } from 'zod';
import { listSuppressions } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { POSTMARK_MAX_WINDOW } from './postmark-page';
import { streamOfPostmark } from './postmark-streams';
import { postmarkSuppressionSchema, toPostmarkSuppression } from './postmark-suppressions';

export const postmarkListSuppressionsRoute = defineRoute({
  method: 'get',
  path: '/postmark/message-streams/:stream/suppressions/dump',
  operationId: 'postmarkListSuppressions',
  tag: 'postmark',
  summary: "Postmark's suppression dump: the entries that hold for the path's stream (GET /v1/suppressions?stream=), newest first.",
  description: 'A management key with suppressions:read, as /v1 asks. At most the 10,000 newest entries.',
  auth: { kind: 'management', scope: 'suppressions:read' },
  dialect: postmarkDialect,
  responses: { 200: { description: 'The list.', schema: z.object({ Suppressions: z.array(postmarkSuppressionSchema) }).meta({ id: 'PostmarkSuppressionDump' }) } },
  async handle({ res, deps, key, params }) {
    const rows = await listSuppressions(deps.db, key.accountId, { stream: streamOfPostmark(params.stream!), limit: POSTMARK_MAX_WINDOW });
    sendJson(res, 200, { Suppressions: rows.map(toPostmarkSuppression) });
  },
});
