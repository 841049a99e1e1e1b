import { removeSuppression } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { suppressionKeyOf, suppressionNotFound } from './suppression-lookup';
import { suppressionStreamQuerySchema } from './suppression.schema';

export const deleteSuppressionRoute = defineRoute({
  method: 'delete',
  path: '/v1/suppressions/:email',
  operationId: 'deleteSuppression',
  tag: 'suppressions',
  summary: 'Remove an address from the suppression list: later messages to it are attempted again.',
  description:
    "Deliveries already failed as `recipient_suppressed` stay failed. With `stream`, the entries that hold for it (its own and every stream's) " +
    'are removed, so that mail of that stream reaches the address again; without, every entry of the address.',
  auth: { kind: 'management', scope: 'suppressions:write' },
  errors: ['suppression_not_found'],
  query: suppressionStreamQuerySchema,
  responses: { 204: { description: 'Removed.' } },
  async handle({ res, deps, key, params, query }) {
    if (!(await removeSuppression(deps.db, key.accountId, suppressionKeyOf(params.email!), query.stream))) throw suppressionNotFound();
    res.status(204).end();
  },
});
