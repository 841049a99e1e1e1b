import { z } from 'zod';
import { AppError, validationError, type EmailRequest } from '@mailer/domain';
import { acceptEmail, MAX_BATCH_MESSAGES, sendEmailBodySchema } from '@mailer/operations';
import { defineRoute, validateBody, type RouteContext } from '../../http/route';
import { sendJson } from '../../http/respond';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { acceptedIds, INTAKE_ERRORS, markAccepted } from '../emails/accepted-answer';
import { postmarkDialect, postmarkError } from './postmark-dialect';
import { postmarkBatchResultSchema, postmarkEmailSchema } from './postmark-email.schema';

type Item = { draft: EmailRequest; to: string } | { refused: { ErrorCode: number; Message: string } };

function readItem(schema: z.ZodType, item: unknown): Item {
  try {
    return { draft: validateBody(sendEmailBodySchema, validateBody(schema, item)), to: (item as { To: string }).To };
  } catch (error) {
    if (error instanceof AppError) return { refused: postmarkError(error).body };
    throw error;
  }
}

/**
 * Postmark's batch of messages as `schema` reads each (/email/batch, /email/batchWithTemplates): a
 * message its rules refuse gets its own result; the others are accepted together as one /v1 batch.
 * `at` names the array in errors about the array itself.
 */
export async function acceptPostmarkBatch(
  { res, deps, key }: Pick<RouteContext<unknown, unknown>, 'res' | 'deps' | 'key'>,
  items: unknown,
  schema: z.ZodType,
  at: string,
): Promise<void> {
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH_MESSAGES) {
    throw validationError([{ path: at, message: `must be an array of 1 to ${MAX_BATCH_MESSAGES} messages` }]);
  }
  const read = items.map((item) => readItem(schema, item));
  const accepted = read.filter((r): r is Extract<Item, { draft: EmailRequest }> => 'draft' in r);
  const ids: string[] = [];
  if (accepted.length > 0) {
    const drafts = accepted.map((a) => a.draft);
    const result = await acceptEmail(deps, { owner: { accountId: key.accountId, test: key.test }, idempotencyKey: null, body: items, drafts, batch: true });
    markAccepted(res, deps, result, drafts);
    ids.push(...acceptedIds(result));
  }
  const submittedAt = deps.now().toISOString();
  let next = 0;
  sendJson(
    res,
    200,
    read.map((r) => ('refused' in r ? r.refused : { To: r.to, SubmittedAt: submittedAt, MessageID: ids[next++]!, ErrorCode: 0, Message: 'OK' })),
  );
}

export const postmarkSendEmailBatchRoute = defineRoute({
  method: 'post',
  path: '/postmark/email/batch',
  operationId: 'postmarkSendEmailBatch',
  tag: 'postmark',
  summary: "Postmark's batch: an answer per message, each with its own ErrorCode.",
  description:
    `Up to ${MAX_BATCH_MESSAGES} messages as POST /postmark/email takes them. A message its rules refuse gets its ErrorCode in its own ` +
    'result; the others are accepted together as one POST /v1/emails/batch, so a refusal of that (the plan, the sender) answers the ' +
    'whole request.',
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  errors: INTAKE_ERRORS,
  body: z.array(postmarkEmailSchema).min(1).max(MAX_BATCH_MESSAGES).meta({ id: 'PostmarkSendEmailBatchRequest' }),
  responses: { 200: { description: 'One result per message, in order.', schema: z.array(postmarkBatchResultSchema), headers: RATE_LIMIT_HEADERS } },
  handle: ({ res, deps, key, json }) => acceptPostmarkBatch({ res, deps, key }, json(), postmarkEmailSchema, '(body)'),
});
