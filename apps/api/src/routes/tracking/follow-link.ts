import { AppError } from '@mailer/domain';
import { recordClick } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { engagementRequest, trackingTarget } from './tracking-token';

const notFound = () => new AppError('not_found', 'This link is not valid, or it has expired.');

/**
 * A tracked link (docs/api-decisions.md, "Opens and clicks"): records `clicked` and redirects
 * to the link's original URL, which the message's stored links give by the token's index, never
 * anything the request carries: the route is no open redirect.
 */
export const followLinkRoute = defineRoute({
  method: 'get',
  path: '/c/:token',
  operationId: 'followLink',
  tag: 'tracking',
  summary: 'A tracked link: records a click of the delivery and link the token names, and redirects to the original URL.',
  description:
    'No key: the link token is the credential. Every click is a `clicked` event and an `email.clicked` webhook with the URL (the ' +
    'first one stamps the delivery). Once retention deleted the message, its links still redirect, recording nothing. A token that is ' +
    'forged, altered, of another use or older than 60 days answers `not_found`.',
  auth: { kind: 'none' },
  responses: { 302: { description: "To the link's original URL.", headers: ['Location'] } },
  errors: ['not_found'],
  async handle({ req, res, deps, params }) {
    const target = trackingTarget(deps, params.token!, 'click');
    const url = target && (await recordClick(deps.tracking, target.deliveryId, target.link, deps.now(), engagementRequest(req)));
    if (!url) throw notFound();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.statusCode = 302;
    res.setHeader('Location', url);
    res.end();
  },
});
