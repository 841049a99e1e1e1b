import { unsubscribe, type UnsubscribeOutcome } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

export type { UnsubscribeOutcome };

/**
 * Applies a recipient's unsubscribe to the delivery its link token names, in one transaction
 * (unsubscribe, docs/api-decisions.md, "Unsubscribe"). A delivery that no longer exists
 * (retention deleted it) is as unknown as a forged token.
 */
export async function unsubscribeDelivery(db: Database, deliveryId: string, at: Date): Promise<UnsubscribeOutcome> {
  const [owner] = await db`select email_id from deliveries where id = ${deliveryId}`;
  if (!owner) return { kind: 'none', reason: 'unknown' };
  const emailId = owner.email_id as string;
  const { answer } = await changeDeliveries(db, [emailId], (messages) => unsubscribe(messages.get(emailId), deliveryId, at));
  return answer;
}
