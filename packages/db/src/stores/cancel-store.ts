import { cancelMessage } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';
import type { EmailOwner } from './email-history-store';

export type CancelOutcome = 'canceled' | 'not_cancelable' | 'not_found';

/**
 * Cancels a message of the owner while none of its deliveries has started (cancelMessage).
 * A claim that leased them first makes the cancel find them `sending`; a claim after the
 * cancel finds them terminal and owes nothing. `checkRequest` runs once the message is found
 * and before anything is written (the HTTP route checks its body there: resource first, then
 * body); what it throws rolls the transaction back.
 */
export async function cancelEmail(
  db: Database,
  owner: EmailOwner,
  emailId: string,
  now: Date,
  checkRequest: () => void = () => {},
): Promise<CancelOutcome> {
  const { answer } = await changeDeliveries<CancelOutcome>(db, [emailId], (messages) => {
    const message = messages.get(emailId);
    if (!message || message.accountId !== owner.accountId || message.test !== owner.test) return { answer: 'not_found' };
    checkRequest();
    return cancelMessage(message, now);
  });
  return answer;
}
