import { defineRoute } from '../../http/route';
import { acceptEmail, acceptedEmailBatchSchema, requireIdempotencyKey, sendEmailBatchBodySchema } from '@mailer/operations';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { INTAKE_ERROR_HEADERS, INTAKE_ERRORS, sendAccepted } from './accepted-answer';

export const sendEmailBatchRoute = defineRoute({
  method: 'post',
  path: '/v1/emails/batch',
  operationId: 'sendEmailBatch',
  tag: 'emails',
  summary: 'Accept up to 100 messages at once, all or none.',
  description:
    'Each item is a POST /v1/emails body. One Idempotency-Key covers the whole batch. Any invalid item refuses the batch (422, each ' +
    'detail path starting with the item index, e.g. `[3].to[0]`); the plan is checked against the recipients of all the items together, ' +
    'so a batch that does not fit is refused whole (429) and stores nothing. The 202 lists the messages in request order. With the ' +
    'test key (`svc_test_…`) every message is a test message, bound by 100 recipients a minute instead of the plan (see POST /v1/emails).',
  auth: { kind: 'sending' },
  errors: INTAKE_ERRORS,
  errorHeaders: INTAKE_ERROR_HEADERS,
  example: [
    { from: 'Example <hello@example.com>', to: 'ann@example.org', subject: 'Your receipt', content: { plain: 'Thanks, Ann.' }, tags: { kind: 'receipt' } },
    { from: 'Example <hello@example.com>', to: 'bob@example.org', subject: 'Your receipt', content: { plain: 'Thanks, Bob.' }, tags: { kind: 'receipt' } },
  ],
  headers: {
    'Idempotency-Key': {
      required: true,
      description: 'One key for the whole batch: 1 to 255 characters, scoped to the account and the key mode (one used with the test key never blocks a live request) and live for 24 hours from the first accepted request.',
    },
  },
  body: sendEmailBatchBodySchema,
  responses: {
    202: {
      description: 'Every message accepted and queued, in order (or the original answer replayed, with Idempotent-Replayed: true).',
      schema: acceptedEmailBatchSchema,
      headers: [...RATE_LIMIT_HEADERS, 'Idempotent-Replayed'],
    },
  },
  async handle({ req, res, deps, key, body, json }) {
    const idempotencyKey = requireIdempotencyKey(req.get('idempotency-key'));
    const drafts = body();
    // The idempotency fingerprint is taken of the request as sent, not as validated.
    const result = await acceptEmail(deps, { owner: { accountId: key.accountId, test: key.test }, idempotencyKey, body: json(), drafts, batch: true });
    sendAccepted(res, deps, result, drafts);
  },
});
