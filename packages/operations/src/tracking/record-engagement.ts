import {
  createEngagementRecorder,
  createTrackedDeliveryLookup,
  findRetiredTrackedLinks,
  type Database,
  type EngagementRecorder,
  type TrackedDeliveryLookup,
} from '@mailer/db';
import { detectImageProxy } from '@mailer/domain';

/** What an open's or a click's request showed: its user agent. */
export interface EngagementRequest {
  userAgent: string | null;
}

/** The tracking endpoints' services: concurrent opens and clicks share their look-ups and their writes. */
export interface EngagementDependencies {
  db: Database;
  trackedDeliveries: TrackedDeliveryLookup;
  engagements: EngagementRecorder;
}

export const engagementServices = (db: Database): EngagementDependencies => ({
  db,
  trackedDeliveries: createTrackedDeliveryLookup(db),
  engagements: createEngagementRecorder(db),
});

/**
 * A fetch of the open pixel of the delivery its token names (docs/api-decisions.md, "Opens and
 * clicks"): `opened`, with the user agent and the image proxy it came through. A delivery no
 * longer kept, or not tracked, records nothing; the pixel answers the same whatever happened.
 */
export async function recordOpen(deps: EngagementDependencies, deliveryId: string, at: Date, request: EngagementRequest): Promise<void> {
  const found = await deps.trackedDeliveries.submit(deliveryId);
  if (!found) return;
  const engagement = { userAgent: request.userAgent, proxy: detectImageProxy(request.userAgent) };
  await deps.engagements.submit({ emailId: found.emailId, deliveryId, observation: 'opened', at, engagement });
}

/**
 * A click of the tracked link its token names: the original URL, the `link`-th of the links
 * intake kept for the message (trackedLinks), never one the request carries, and `clicked` with
 * it. Once retention deleted the message, the link still redirects, by the links kept for its
 * delivery until its tokens expire, and records nothing. Undefined when there is no such link
 * (clicks not tracked, or not kept any more). A genuine link is followed even when nothing is
 * recorded (a click racing the record of the delivery's acceptance).
 */
export async function recordClick(deps: EngagementDependencies, deliveryId: string, link: number, at: Date, request: EngagementRequest): Promise<string | undefined> {
  const found = await deps.trackedDeliveries.submit(deliveryId);
  if (!found) return (await findRetiredTrackedLinks(deps.db, deliveryId, at))?.[link];
  const url = found.trackedLinks?.[link];
  if (url === undefined) return undefined;
  const engagement = { url, userAgent: request.userAgent, proxy: detectImageProxy(request.userAgent) };
  const outcome = await deps.engagements.submit({ emailId: found.emailId, deliveryId, observation: 'clicked', at, engagement });
  return outcome.kind === 'none' && outcome.reason === 'unknown' ? undefined : url;
}
