import { WAITING_STATUSES } from '@mailer/domain';
import type { Database } from '../database';
import { lockedMessagesFrom, lockMessages } from '../deliveries/locked-messages';
import { writeTransitions, type Transition } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';

/** Messages per transaction when an account's waiting deliveries are made due. */
const RESUME_PAGE_SIZE = 500;

/**
 * Makes every waiting (queued or deferred) delivery of the account that is not due yet due
 * now (`made_due`, through the transition writer), a page of messages per transaction, as a
 * resumed account's deliveries held while it was paused wait for their expiry
 * (docs/api-decisions.md, "Reputation"). The scan reads the waiting deliveries due later
 * (deliveries_status_due_idx) and keeps the account's: resuming is rare. Resolves with the
 * messages made due, for the caller to enqueue.
 */
export async function makeAccountDeliveriesDue(db: Database, accountId: string, now: Date): Promise<string[]> {
  const made: string[] = [];
  let afterId = '';
  for (;;) {
    const page = await db`
      select distinct email_id from deliveries
       where status = any(${WAITING_STATUSES}::text[]) and next_attempt_at > ${now} and account_id = ${accountId} and email_id > ${afterId}
       order by email_id limit ${RESUME_PAGE_SIZE}`;
    const emailIds = page.map((r) => r.email_id as string);
    if (emailIds.length === 0) return made;
    await inTransaction(db, async (tx) => {
      const { locked } = await tx.send({ locked: lockMessages(tx, emailIds) });
      const messages = [...lockedMessagesFrom(locked).values()];
      const transitions: Transition[] = [];
      for (const m of messages) {
        const due = m.deliveries.filter((d) => (d.status === 'queued' || d.status === 'deferred') && d.nextAttemptAt > now);
        if (due.length === 0) continue;
        made.push(m.emailId);
        transitions.push(...due.map((d) => ({ reason: 'made_due' as const, delivery: d.id, to: d.status, cause: d.cause, at: now, nextAttemptAt: now })));
      }
      if (transitions.length > 0) await tx.commit(...writeTransitions(tx, { messages, transitions }).statements);
    });
    if (emailIds.length < RESUME_PAGE_SIZE) return made;
    afterId = emailIds[emailIds.length - 1]!;
  }
}
