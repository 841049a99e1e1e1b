import { CANCELED, isCancelable } from '@mailer/domain';
import type { Database } from '../database';
import { lockedMessagesFrom, lockMessages } from '../deliveries/locked-messages';
import { writeTransitions } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';
import type { EmailOwner } from './email-history-store';

export type CancelOutcome = 'canceled' | 'not_cancelable' | 'not_found';

/**
 * Cancels a message of the owner while none of its deliveries has started
 * (isCancelable): each queued delivery ends `failed` with cause `canceled` through the
 * transition writer. The deliveries' locks are taken first, waiting for a claim in progress
 * (lock-order): a claim that leased them first makes the cancel find them `sending`; a claim
 * after the cancel finds them terminal and owes nothing. `checkRequest` runs once the message
 * is found and before anything is written (the HTTP route checks its body there: resource
 * first, then body); what it throws rolls the transaction back.
 */
export async function cancelEmail(
  db: Database,
  owner: EmailOwner,
  emailId: string,
  now: Date,
  checkRequest: () => void = () => {},
): Promise<CancelOutcome> {
  return inTransaction(db, async (tx) => {
    const { locked } = await tx.send({ locked: lockMessages(tx, [emailId]) });
    const message = lockedMessagesFrom(locked).get(emailId);
    if (!message || message.accountId !== owner.accountId || message.test !== owner.test) return 'not_found';
    checkRequest();
    if (!isCancelable(message.deliveries)) return 'not_cancelable';
    const transitions = message.deliveries
      .filter((d) => d.status === 'queued')
      .map((d) => ({ reason: 'canceled' as const, delivery: d.id, to: 'failed' as const, cause: CANCELED, at: now }));
    await tx.commit(...writeTransitions(tx, { messages: [message], transitions }).statements);
    return 'canceled';
  });
}
