import { firstDueAt, rescheduleMessage } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';
import type { EmailOwner } from './email-history-store';

export type RescheduleOutcome = { kind: 'rescheduled'; accountId: string; dueAt: Date } | { kind: 'not_reschedulable' } | { kind: 'not_found' };

/**
 * Gives a message of the owner a new scheduled time while none of its deliveries has started
 * (rescheduleMessage: a message can be rescheduled exactly while it can be canceled,
 * docs/api-decisions.md, "Scheduled send and cancel"): each queued delivery is due at
 * firstDueAt of the new time (now for a past one), and the message shows the time asked.
 * `requestedAt` runs once the message is found and before anything is written (resource
 * first, then body); what it throws rolls the transaction back. The caller enqueues the job
 * owed at `dueAt`.
 */
export async function rescheduleEmail(db: Database, owner: EmailOwner, emailId: string, now: Date, requestedAt: () => Date): Promise<RescheduleOutcome> {
  let scheduledAt: Date | undefined;
  const { answer } = await changeDeliveries<RescheduleOutcome>(
    db,
    [emailId],
    (messages) => {
      const message = messages.get(emailId);
      if (!message || message.accountId !== owner.accountId || message.test !== owner.test) return { answer: { kind: 'not_found' } };
      scheduledAt = requestedAt();
      const dueAt = firstDueAt(scheduledAt, now);
      const changes = rescheduleMessage(message, dueAt, now);
      return { ...changes, answer: changes.answer === 'rescheduled' ? { kind: 'rescheduled', accountId: message.accountId, dueAt } : { kind: 'not_reschedulable' } };
    },
    { alsoWrite: (tx, answer) => (answer.kind === 'rescheduled' ? [tx.sql`update emails set scheduled_at = ${scheduledAt!} where id = ${emailId}`] : []) },
  );
  return answer;
}
