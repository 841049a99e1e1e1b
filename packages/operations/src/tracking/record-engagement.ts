import { findRetiredTrackedLinks, findTrackedDelivery, recordDeliveryEngagement, type Database } from '@mailer/db';
import { detectImageProxy } from '@mailer/domain';

/** What an open's or a click's request showed: its user agent. */
export interface EngagementRequest {
  userAgent: string | null;
}

/**
 * A fetch of the open pixel of the delivery its token names (docs/api-decisions.md, "Opens and
 * clicks"): `opened`, with the user agent and the image proxy it came through. A delivery no
 * longer kept, or not tracked, records nothing; the pixel answers the same whatever happened.
 */
export async function recordOpen(db: Database, deliveryId: string, at: Date, request: EngagementRequest): Promise<void> {
  const found = await findTrackedDelivery(db, deliveryId);
  if (!found) return;
  await recordDeliveryEngagement(db, found.emailId, deliveryId, 'opened', at, { userAgent: request.userAgent, proxy: detectImageProxy(request.userAgent) });
}

/**
 * A click of the tracked link its token names: the original URL, the `link`-th of the links
 * intake kept for the message (trackedLinks), never one the request carries, and `clicked` with
 * it. Once retention deleted the message, the link still redirects, by the links kept for its
 * delivery until its tokens expire, and records nothing. Undefined when there is no such link
 * (clicks not tracked, or not kept any more). A genuine link is followed even when nothing is
 * recorded (a click racing the record of the delivery's acceptance).
 */
export async function recordClick(db: Database, deliveryId: string, link: number, at: Date, request: EngagementRequest): Promise<string | undefined> {
  const found = await findTrackedDelivery(db, deliveryId);
  if (!found) return (await findRetiredTrackedLinks(db, deliveryId, at))?.[link];
  const url = found.trackedLinks?.[link];
  if (url === undefined) return undefined;
  const outcome = await recordDeliveryEngagement(db, found.emailId, deliveryId, 'clicked', at, { url, userAgent: request.userAgent, proxy: detectImageProxy(request.userAgent) });
  return outcome.kind === 'none' && outcome.reason === 'unknown' ? undefined : url;
}
