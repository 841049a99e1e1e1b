import { removeSuppression } from '@mailer/operations';
import { suppressionChangeRoute } from './suppression-change-route';

export const postmarkDeleteSuppressionsRoute = suppressionChangeRoute({
  path: '/postmark/message-streams/:stream/suppressions/delete',
  operationId: 'postmarkDeleteSuppressions',
  summary: "Remove addresses from the path's stream's suppression list (DELETE /v1/suppressions/{email}?stream= for each).",
  description: 'A management key with suppressions:write, as /v1 asks. An address not on the list is Failed, with the reason.',
  async apply(deps, accountId, stream, mailbox) {
    const removed = mailbox !== undefined && (await removeSuppression(deps.db, accountId, mailbox.key, stream));
    return removed ? { Status: 'Deleted', Message: null } : { Status: 'Failed', Message: 'not on the suppression list' };
  },
});
