import { addSuppression } from '@mailer/operations';
import { suppressionChangeRoute } from './suppression-change-route';

export const postmarkCreateSuppressionsRoute = suppressionChangeRoute({
  path: '/postmark/message-streams/:stream/suppressions',
  operationId: 'postmarkCreateSuppressions',
  summary: "Suppress addresses on the path's stream (POST /v1/suppressions for each), each with its own Status.",
  description: 'A management key with suppressions:write, as /v1 asks. An address already suppressed is Suppressed as it stands.',
  async apply(deps, accountId, stream, mailbox) {
    if (!mailbox) return { Status: 'Failed', Message: 'not an email address' };
    await addSuppression(deps.db, accountId, { email: mailbox.address, emailKey: mailbox.key, reason: 'manual', stream, at: deps.now() });
    return { Status: 'Suppressed', Message: null };
  },
});
