import { findSuppression } from '@mailer/operations';
import { sendJson } from '../../http/respond';
import { defineRoute } from '../../http/route';
import { serializeSuppression, suppressionSchema, suppressionStreamQuerySchema } from './suppression.schema';
import { suppressionKeyOf, suppressionNotFound } from './suppression-lookup';

export const getSuppressionRoute = defineRoute({
  method: 'get',
  path: '/v1/suppressions/:email',
  operationId: 'getSuppression',
  tag: 'suppressions',
  summary: "One address's suppression entry.",
  description:
    'The address is URL-encoded in the path and normalized as recipients are. With `stream`, the entry that holds for it ' +
    "(every stream's first); without, the address's most general entry (every stream's, then transactional, then broadcast).",
  auth: { kind: 'management', scope: 'suppressions:read' },
  errors: ['suppression_not_found'],
  query: suppressionStreamQuerySchema,
  responses: { 200: { description: 'The entry.', schema: suppressionSchema } },
  async handle({ res, deps, key, params, query }) {
    const suppression = await findSuppression(deps.db, key.accountId, suppressionKeyOf(params.email!), query.stream);
    if (!suppression) throw suppressionNotFound();
    sendJson(res, 200, serializeSuppression(suppression));
  },
});
