import { unsubscribeDelivery } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { DONE_PAGE, notFound, sendPage, unsubscribeTarget } from './unsubscribe-page';

/**
 * RFC 8058 one-click unsubscribe, and the confirmation page's button: the recipient of the
 * delivery the token names is suppressed (`unsubscribed`), with the event and the webhook
 * (docs/api-decisions.md, "Unsubscribe"). A second POST answers the same and changes nothing.
 * The body (`List-Unsubscribe=One-Click`) is not read: the token is the credential, and only a
 * POST applies it.
 */
export const unsubscribeRoute = defineRoute({
  method: 'post',
  path: '/u/:token',
  operationId: 'unsubscribe',
  tag: 'unsubscribe',
  summary: 'One-click unsubscribe (RFC 8058): suppresses the recipient of the delivery the link names.',
  description:
    'No key: the link token is the credential. Mail providers POST `List-Unsubscribe=One-Click` (application/x-www-form-urlencoded); ' +
    'the page of GET /u/{token} posts the same. Applied once; a repeat answers 200 too. A token that is forged, altered or older than ' +
    '60 days, or whose message was never delivered or is no longer kept, answers `not_found`.',
  auth: { kind: 'none' },
  unreadBody: {
    contentType: 'application/x-www-form-urlencoded',
    description: 'RFC 8058\'s `List-Unsubscribe=One-Click`; not read: the POST itself is the request.',
    example: 'List-Unsubscribe=One-Click',
  },
  responses: { 200: { description: 'Unsubscribed (now or before): a page saying so.', contentType: 'text/html' } },
  errors: ['not_found'],
  async handle({ res, deps, params }) {
    const deliveryId = unsubscribeTarget(deps, params.token!);
    const outcome = await unsubscribeDelivery(deps.db, deliveryId, deps.now());
    // A message never delivered (or no longer kept) has no recipient to unsubscribe: as unknown as a bad token.
    if (outcome.kind === 'none' && outcome.reason !== 'already_unsubscribed') throw notFound();
    sendPage(res, DONE_PAGE);
  },
});
