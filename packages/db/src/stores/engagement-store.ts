import { recordEngagement, type Engagement, type EngagementOutcome } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

export type { EngagementOutcome };

/** The message a tracking token's delivery belongs to, with the links its click tokens name by index (null: clicks not tracked). */
export async function findTrackedDelivery(db: Database, deliveryId: string): Promise<{ emailId: string; trackedLinks: string[] | null } | undefined> {
  const [row] = await db`select d.email_id, e.tracked_links from deliveries d join emails e on e.id = d.email_id where d.id = ${deliveryId}`;
  return row && { emailId: row.email_id as string, trackedLinks: row.tracked_links as string[] | null };
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
