import { z } from 'zod';
import { countEmails, listEmails } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { postmarkMessageSchema, toPostmarkMessage } from './postmark-message.representation';
import { postmarkPageQuerySchema } from './postmark-page';

export const postmarkListOutboundMessagesRoute = defineRoute({
  method: 'get',
  path: '/postmark/messages/outbound',
  operationId: 'postmarkListOutboundMessages',
  tag: 'postmark',
  summary: "Postmark's outbound message search over GET /v1/emails: count and offset, newest first.",
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  query: postmarkPageQuerySchema,
  responses: {
    200: {
      description: 'One page.',
      schema: z.object({ TotalCount: z.number().int(), Messages: z.array(postmarkMessageSchema) }).meta({ id: 'PostmarkOutboundMessages' }),
    },
  },
  async handle({ res, deps, key, query }) {
    const owner = { accountId: key.accountId, test: key.test };
    const [rows, total] = await Promise.all([listEmails(deps.db, owner, {}, undefined, query.offset + query.count), countEmails(deps.db, owner)]);
    sendJson(res, 200, { TotalCount: total, Messages: rows.slice(query.offset).map(toPostmarkMessage) });
  },
});
