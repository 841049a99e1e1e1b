import { addSuppression } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { createSuppressionBodySchema, serializeSuppression, suppressionSchema } from './suppression.schema';

export const createSuppressionRoute = defineRoute({
  method: 'post',
  path: '/v1/suppressions',
  operationId: 'createSuppression',
  tag: 'suppressions',
  summary: 'Suppress an address: the account never sends to it again (on the stream given, else on any) until it is removed.',
  description:
    'Sending to a suppressed address is still accepted (202); its delivery is created failed with cause ' +
    '`recipient_suppressed` and never attempted. An address already on the list is answered 200 with its entry as it is.',
  auth: { kind: 'management', scope: 'suppressions:write' },
  example: { email: 'someone@example.org' },
  body: createSuppressionBodySchema,
  responses: {
    201: { description: 'Added.', schema: suppressionSchema, headers: ['Location'] },
    200: { description: 'Already on the list; the entry as it stands.', schema: suppressionSchema, headers: ['Location'] },
  },
  async handle({ res, deps, key, body }) {
    const { email, stream } = body();
    const result = await addSuppression(deps.db, key.accountId, { email: email.address, emailKey: email.key, reason: 'manual', stream: stream ?? null, at: deps.now() });
    res.location(`/v1/suppressions/${encodeURIComponent(result.suppression.email)}`);
    sendJson(res, result.created ? 201 : 200, serializeSuppression(result.suppression));
  },
});
