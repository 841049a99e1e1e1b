import { removeSuppression } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { suppressionKeyOf, suppressionNotFound } from './suppression-lookup';

export const deleteSuppressionRoute = defineRoute({
  method: 'delete',
  path: '/v1/suppressions/:email',
  operationId: 'deleteSuppression',
  tag: 'suppressions',
  summary: 'Remove an address from the suppression list: later messages to it are attempted again.',
  description: 'Deliveries already failed as `recipient_suppressed` stay failed.',
  auth: { kind: 'management', scope: 'suppressions:write' },
  errors: ['suppression_not_found'],
  responses: { 204: { description: 'Removed.' } },
  async handle({ res, deps, key, params }) {
    if (!(await removeSuppression(deps.db, key.accountId, suppressionKeyOf(params.email!)))) throw suppressionNotFound();
    res.status(204).end();
  },
});
