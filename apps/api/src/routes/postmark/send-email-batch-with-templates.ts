import { z } from 'zod';
import { MAX_BATCH_MESSAGES } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { INTAKE_ERRORS } from '../emails/accepted-answer';
import { postmarkDialect } from './postmark-dialect';
import { postmarkBatchResultSchema, postmarkTemplatedEmailSchema } from './postmark-email.schema';
import { acceptPostmarkBatch } from './send-email-batch';

export const postmarkSendEmailBatchWithTemplatesRoute = defineRoute({
  method: 'post',
  path: '/postmark/email/batchWithTemplates',
  operationId: 'postmarkSendEmailBatchWithTemplates',
  tag: 'postmark',
  summary: "Postmark's templated batch: `{Messages}`, an answer per message, each with its own ErrorCode.",
  description:
    `Up to ${MAX_BATCH_MESSAGES} messages as POST /postmark/email/withTemplate takes them, answered as POST /postmark/email/batch answers.`,
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  errors: INTAKE_ERRORS,
  body: z.strictObject({ Messages: z.array(postmarkTemplatedEmailSchema).min(1).max(MAX_BATCH_MESSAGES) }).meta({ id: 'PostmarkSendEmailBatchWithTemplatesRequest' }),
  responses: { 200: { description: 'One result per message, in order.', schema: z.array(postmarkBatchResultSchema), headers: RATE_LIMIT_HEADERS } },
  handle: ({ res, deps, key, json }) => acceptPostmarkBatch({ res, deps, key }, (json() as { Messages?: unknown } | null)?.Messages, postmarkTemplatedEmailSchema, 'Messages'),
});
