import { accountView, accountViewSchema } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';

export const getAccountRoute = defineRoute({
  method: 'get',
  path: '/v1/account',
  operationId: 'getAccount',
  tag: 'account',
  summary: "The account's plan, its usage in each plan window and its sending state.",
  description:
    'Usage is counted as intake counts it: unique recipients accepted in each rolling window, and recipient deliveries still queued, sending or deferred. ' +
    'A request whose unique recipients alone exceed a window is refused with `422 plan_limit_exceeded`; one that exceeds what is left of it, with `429 rate_limit_exceeded`.',
  auth: { kind: 'account' },
  responses: { 200: { description: 'The account.', schema: accountViewSchema } },
  async handle({ res, deps, key }) {
    sendJson(res, 200, await accountView(deps.db, key.accountId, deps.now()));
  },
});
