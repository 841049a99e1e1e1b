import { AppError } from '@mailer/domain';
import { acceptEmail, optionalIdempotencyKey, sendEmailBatchBodySchema } from '@mailer/operations';
import { defineRoute, validateBody } from '../../http/route';
import { sendJson } from '../../http/respond';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { acceptedIds, INTAKE_ERRORS, markAccepted } from '../emails/accepted-answer';
import { resendDialect } from './resend-dialect';
import { resendBatchSentSchema, resendEmailBatchSchema } from './resend-email.schema';
import { RESEND_IDEMPOTENCY_KEY } from './resend-headers';

export const resendSendEmailBatchRoute = defineRoute({
  method: 'post',
  path: '/resend/emails/batch',
  operationId: 'resendSendEmailBatch',
  tag: 'resend',
  summary: "Resend's batch send: the same operation as POST /v1/emails/batch, all or none.",
  description:
    'Up to 100 messages as POST /resend/emails takes them; one invalid message refuses the batch (Resend\'s strict validation; ' +
    '`x-batch-validation: permissive` is refused).',
  auth: { kind: 'sending' },
  dialect: resendDialect,
  errors: INTAKE_ERRORS,
  headers: {
    ...RESEND_IDEMPOTENCY_KEY,
    'x-batch-validation': { required: false, description: '`strict` (the default) only.' },
  },
  body: resendEmailBatchSchema,
  responses: { 200: { description: 'Every message accepted and queued, in order.', schema: resendBatchSentSchema, headers: [...RATE_LIMIT_HEADERS, 'Idempotent-Replayed'] } },
  async handle({ req, res, deps, key, body, json }) {
    const mode = req.get('x-batch-validation');
    if (mode !== undefined && mode !== 'strict') {
      throw new AppError('validation_error', 'Only strict batch validation is supported.', { details: [{ path: 'x-batch-validation', message: 'must be strict' }] });
    }
    const idempotencyKey = optionalIdempotencyKey(req.get('idempotency-key'));
    const drafts = validateBody(sendEmailBatchBodySchema, body());
    const result = await acceptEmail(deps, { owner: { accountId: key.accountId, test: key.test }, idempotencyKey, body: json(), drafts, batch: true });
    markAccepted(res, deps, result, drafts);
    sendJson(res, 200, { data: acceptedIds(result).map((id) => ({ id })) });
  },
});
