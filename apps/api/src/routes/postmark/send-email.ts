import { acceptEmail, sendEmailBodySchema } from '@mailer/operations';
import { defineRoute, validateBody, type RouteContext } from '../../http/route';
import { sendJson } from '../../http/respond';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { acceptedIds, INTAKE_ERRORS, markAccepted } from '../emails/accepted-answer';
import { postmarkDialect } from './postmark-dialect';
import { postmarkEmailSchema, postmarkSentSchema } from './postmark-email.schema';

/**
 * Accepts the message the route's schema translated (its output a /v1 body) as POST /v1/emails
 * does, and answers as Postmark does; /email and /email/withTemplate alike.
 */
export async function acceptPostmarkMessage({ res, deps, key, body, json }: RouteContext<unknown, unknown>): Promise<void> {
  const draft = validateBody(sendEmailBodySchema, body());
  const result = await acceptEmail(deps, { owner: { accountId: key.accountId, test: key.test }, idempotencyKey: null, body: json(), drafts: [draft], batch: false });
  markAccepted(res, deps, result, [draft]);
  sendJson(res, 200, { To: (json() as { To: string }).To, SubmittedAt: deps.now().toISOString(), MessageID: acceptedIds(result)[0], ErrorCode: 0, Message: 'OK' });
}

export const postmarkSendEmailRoute = defineRoute({
  method: 'post',
  path: '/postmark/email',
  operationId: 'postmarkSendEmail',
  tag: 'postmark',
  summary: "Postmark's send: the same operation as POST /v1/emails.",
  description:
    'Fields as Postmark names them, mapped onto POST /v1/emails and validated by its rules (docs/api-decisions.md, "Resend and Postmark ' +
    'adapters"). Postmark has no idempotency key: each request is a new message.',
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  errors: INTAKE_ERRORS,
  example: { From: 'Example <hello@example.com>', To: 'Ann <ann@example.org>, bob@example.org', Subject: 'Hello', TextBody: 'Hello', MessageStream: 'outbound' },
  body: postmarkEmailSchema,
  responses: { 200: { description: 'Accepted and queued.', schema: postmarkSentSchema, headers: RATE_LIMIT_HEADERS } },
  handle: acceptPostmarkMessage,
});
