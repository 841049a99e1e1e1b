import { firstDueAt, isCancelable } from '@mailer/domain';
import type { Database } from '../database';
import { lockedMessagesFrom, lockMessages } from '../deliveries/locked-messages';
import { writeTransitions } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';
import type { EmailOwner } from './email-history-store';

export type RescheduleOutcome = { kind: 'rescheduled'; accountId: string; dueAt: Date } | { kind: 'not_reschedulable' } | { kind: 'not_found' };

/**
 * Gives a message of the owner a new scheduled time while none of its deliveries has started
 * (isCancelable: a message can be rescheduled exactly while it can be canceled,
 * docs/api-decisions.md, "Scheduled send and cancel"): each queued delivery is due at
 * firstDueAt of the new time (now for a past one) through the transition writer
 * (`rescheduled`), and the message shows the time asked. Locks as cancelEmail does, so a
 * claim in progress is waited for. `requestedAt` runs once the message is found and before
 * anything is written (resource first, then body); what it throws rolls the transaction back.
 * The caller enqueues the job owed at `dueAt`.
 */
export async function rescheduleEmail(db: Database, owner: EmailOwner, emailId: string, now: Date, requestedAt: () => Date): Promise<RescheduleOutcome> {
  return inTransaction(db, async (tx) => {
    const { locked } = await tx.send({ locked: lockMessages(tx, [emailId]) });
    const message = lockedMessagesFrom(locked).get(emailId);
    if (!message || message.accountId !== owner.accountId || message.test !== owner.test) return { kind: 'not_found' };
    const scheduledAt = requestedAt();
    if (!isCancelable(message.deliveries)) return { kind: 'not_reschedulable' };
    const dueAt = firstDueAt(scheduledAt, now);
    const transitions = message.deliveries
      .filter((d) => d.status === 'queued')
      .map((d) => ({ reason: 'rescheduled' as const, delivery: d.id, to: 'queued' as const, cause: d.cause, at: now, nextAttemptAt: dueAt }));
    await tx.commit(
      ...writeTransitions(tx, { messages: [message], transitions }).statements,
      tx.sql`update emails set scheduled_at = ${scheduledAt} where id = ${emailId}`,
    );
    return { kind: 'rescheduled', accountId: message.accountId, dueAt };
  });
}
