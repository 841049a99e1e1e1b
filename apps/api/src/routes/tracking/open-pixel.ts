import { recordOpen } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { engagementRequest, trackingTarget } from './tracking-token';

/** A transparent 1×1 GIF, the smallest image every mail client shows. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * The open pixel of a tracked message (docs/api-decisions.md, "Opens and clicks"): records
 * `opened` for the delivery its token names, and answers the image whatever the token, so that a
 * mail client never shows a broken image and a forged token learns nothing.
 */
export const openPixelRoute = defineRoute({
  method: 'get',
  path: '/o/:token',
  operationId: 'openPixel',
  tag: 'tracking',
  summary: "The open pixel: records an open of the delivery the token names, and answers a 1x1 GIF.",
  description:
    'No key: the link token is the credential. Every fetch is an `opened` event and an `email.opened` webhook (the first one stamps ' +
    'the delivery), with the user agent and the image proxy it came through. A token that is forged, altered, older than 60 days or ' +
    'of a message no longer kept answers the same image and records nothing.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'A transparent 1x1 GIF, never cached.', contentType: 'image/gif' } },
  async handle({ req, res, deps, params }) {
    const target = trackingTarget(deps, params.token!, 'open');
    if (target) await recordOpen(deps.tracking, target.deliveryId, deps.now(), engagementRequest(req));
    res.statusCode = 200;
    res.setHeader('Content-Type', 'image/gif');
    res.setHeader('Content-Length', PIXEL.length);
    res.setHeader('Cache-Control', 'no-store, max-age=0');
    res.end(PIXEL);
  },
});
