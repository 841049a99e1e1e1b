import { recordEngagement, type Engagement, type EngagementOutcome } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

export type { EngagementOutcome };

/** The message a tracking token's delivery belongs to, with the links its click tokens name by index (null: clicks not tracked). */
export async function findTrackedDelivery(db: Database, deliveryId: string): Promise<{ emailId: string; trackedLinks: string[] | null } | undefined> {
  const [row] = await db`select d.email_id, e.tracked_links from deliveries d join emails e on e.id = d.email_id where d.id = ${deliveryId}`;
  return row && { emailId: row.email_id as string, trackedLinks: row.tracked_links as string[] | null };
}

/** The links of a tracked delivery whose message retention deleted, until its click tokens expire (retired_tracked_links). */
export async function findRetiredTrackedLinks(db: Database, deliveryId: string, now: Date): Promise<string[] | undefined> {
  const [row] = await db`select links from retired_tracked_links where delivery_id = ${deliveryId} and expires_at > ${now}`;
  return row?.links as string[] | undefined;
}

/**
 * Records an open or a click of the delivery, in one transaction (recordEngagement,
 * docs/api-decisions.md, "Opens and clicks"): the event, the webhook and the first one's stamp.
 */
export async function recordDeliveryEngagement(
  db: Database,
  emailId: string,
  deliveryId: string,
  observation: 'opened' | 'clicked',
  at: Date,
  engagement: Engagement,
): Promise<EngagementOutcome> {
  const { answer } = await changeDeliveries(db, [emailId], (messages) => recordEngagement(messages.get(emailId), deliveryId, observation, at, engagement));
  return answer;
}
