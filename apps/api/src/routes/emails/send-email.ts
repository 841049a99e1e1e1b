import { defineRoute } from '../../http/route';
import { acceptEmail, acceptedEmailSchema, requireIdempotencyKey, sendEmailBodySchema } from '@mailer/operations';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { INTAKE_ERROR_HEADERS, INTAKE_ERRORS, sendAccepted } from './accepted-answer';

export const sendEmailRoute = defineRoute({
  method: 'post',
  path: '/v1/emails',
  operationId: 'sendEmail',
  tag: 'emails',
  summary: 'Accept a message for delivery.',
  description:
    'Stores the message durably, then answers 202. Every answer that reaches the acceptance decision (202, replays, 409, ' +
    '422 sender_not_allowed, 429) carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. With the test key (`svc_test_…`) ' +
    'the message is a test message: `from` may be any active sender whatever its domain\'s state, nothing is delivered or counted, ' +
    'and the only bound is 100 recipients a minute per account (429 rate_limit_exceeded with Retry-After; the RateLimit-* headers ' +
    'describe that bound).',
  auth: { kind: 'sending' },
  errors: INTAKE_ERRORS,
  errorHeaders: INTAKE_ERROR_HEADERS,
  example: {
    from: 'Example <hello@example.com>',
    to: ['someone@example.org'],
    subject: 'Your sign-in code',
    content: { plain: 'Your code is 123456.', html: '<p>Your code is <b>123456</b>.</p>' },
    reply_to: 'support@example.com',
    headers: {
      'List-Unsubscribe': '<https://example.com/unsubscribe/abc123>, <mailto:unsubscribe@example.com?subject=abc123>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    tags: { category: 'sign_in' },
    scheduled_at: '2026-11-24T09:00:00Z',
  },
  headers: {
    'Idempotency-Key': {
      required: true,
      description: '1 to 255 characters, scoped to the account and the key mode (one used with the test key never blocks a live request) and live for 24 hours from the first accepted request.',
    },
  },
  body: sendEmailBodySchema,
  responses: {
    202: { description: 'Accepted and queued (or the original answer replayed, with Idempotent-Replayed: true).', schema: acceptedEmailSchema, headers: [...RATE_LIMIT_HEADERS, 'Idempotent-Replayed'] },
  },
  async handle({ req, res, deps, key, body, json }) {
    const idempotencyKey = requireIdempotencyKey(req.get('idempotency-key'));
    const draft = body();
    const result = await acceptEmail(deps, {
      owner: { accountId: key.accountId, test: key.test },
      idempotencyKey,
      // The idempotency fingerprint is taken of the request as sent, not as validated.
      body: json(),
      drafts: [draft],
      batch: false,
    });
    sendAccepted(res, deps, result, [draft]);
  },
});
