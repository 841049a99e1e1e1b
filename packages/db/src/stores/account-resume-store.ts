import { makeWaitingDue, WAITING_STATUSES, type EmailType } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

/** Messages per transaction when an account's waiting deliveries are made due. */
const RESUME_PAGE_SIZE = 500;

/**
 * Makes every waiting delivery of the account's messages of these streams that is not due
 * yet due now (makeWaitingDue), a page of messages per transaction, as a resumed stream's
 * deliveries held while it was paused wait for their expiry (docs/api-decisions.md,
 * "Reputation"). The scan reads the waiting deliveries due later (deliveries_status_due_idx)
 * and keeps the account's of those streams: resuming is rare. Resolves with the messages made
 * due, for the caller to enqueue.
 */
export async function makeAccountDeliveriesDue(db: Database, accountId: string, streams: readonly EmailType[], now: Date): Promise<string[]> {
  const made: string[] = [];
  let afterId = '';
  for (;;) {
    const page = await db`
      select distinct d.email_id from deliveries d join emails e on e.id = d.email_id
       where d.status = any(${WAITING_STATUSES}::text[]) and d.next_attempt_at > ${now} and d.account_id = ${accountId} and d.email_id > ${afterId}
         and e.type = any(${[...streams]}::text[])
       order by d.email_id limit ${RESUME_PAGE_SIZE}`;
    const emailIds = page.map((r) => r.email_id as string);
    if (emailIds.length === 0) return made;
    const { answer } = await changeDeliveries(db, emailIds, (messages) => makeWaitingDue(messages.values(), now));
    made.push(...answer.messages.map((m) => m.emailId));
    if (emailIds.length < RESUME_PAGE_SIZE) return made;
    afterId = emailIds[emailIds.length - 1]!;
  }
}
