import { defineRoute } from '../../http/route';
import { CONFIRM_PAGE, sendPage, unsubscribeTarget } from './unsubscribe-page';

/**
 * The List-Unsubscribe URL opened in a browser: a page whose button POSTs to it. It changes
 * nothing, since link scanners and previews fetch every link of a message (docs/api-decisions.md,
 * "Unsubscribe").
 */
export const getUnsubscribePageRoute = defineRoute({
  method: 'get',
  path: '/u/:token',
  operationId: 'getUnsubscribePage',
  tag: 'unsubscribe',
  summary: 'The page of a List-Unsubscribe link: a button that unsubscribes. Changes nothing.',
  description: 'No key: the link token is the credential. A token that is forged, altered or older than 60 days answers `not_found`.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'The confirmation page.', contentType: 'text/html' } },
  errors: ['not_found'],
  async handle({ res, deps, params }) {
    unsubscribeTarget(deps, params.token!);
    sendPage(res, CONFIRM_PAGE);
  },
});
