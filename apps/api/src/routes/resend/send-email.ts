import { acceptEmail, optionalIdempotencyKey, sendEmailBodySchema } from '@mailer/operations';
import { defineRoute, validateBody } from '../../http/route';
import { sendJson } from '../../http/respond';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { acceptedIds, INTAKE_ERRORS, markAccepted } from '../emails/accepted-answer';
import { resendDialect } from './resend-dialect';
import { resendEmailSchema, resendSentSchema } from './resend-email.schema';
import { RESEND_IDEMPOTENCY_KEY } from './resend-headers';

export const resendSendEmailRoute = defineRoute({
  method: 'post',
  path: '/resend/emails',
  operationId: 'resendSendEmail',
  tag: 'resend',
  summary: "Resend's send: the same operation as POST /v1/emails.",
  description:
    'Fields as Resend names them, mapped onto POST /v1/emails and validated by its rules (docs/api-decisions.md, "Resend and Postmark ' +
    'adapters"). The Idempotency-Key is optional: without one the request is not deduplicated.',
  auth: { kind: 'sending' },
  dialect: resendDialect,
  errors: INTAKE_ERRORS,
  headers: RESEND_IDEMPOTENCY_KEY,
  example: { from: 'Example <hello@example.com>', to: ['Ann <ann@example.org>'], subject: 'Hello', html: '<p>Hello</p>', tags: [{ name: 'kind', value: 'welcome' }] },
  body: resendEmailSchema,
  responses: { 200: { description: 'Accepted and queued.', schema: resendSentSchema, headers: [...RATE_LIMIT_HEADERS, 'Idempotent-Replayed'] } },
  async handle({ req, res, deps, key, body, json }) {
    const idempotencyKey = optionalIdempotencyKey(req.get('idempotency-key'));
    const draft = validateBody(sendEmailBodySchema, body());
    const result = await acceptEmail(deps, { owner: { accountId: key.accountId, test: key.test }, idempotencyKey, body: json(), drafts: [draft], batch: false });
    markAccepted(res, deps, result, [draft]);
    sendJson(res, 200, { id: acceptedIds(result)[0] });
  },
});
