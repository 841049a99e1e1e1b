import { makeWaitingDue, WAITING_STATUSES } from '@mailer/domain';
import type { Database } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

/** Messages per transaction when an account's waiting deliveries are made due. */
const RESUME_PAGE_SIZE = 500;

/**
 * Makes every waiting delivery of the account that is not due yet due now (makeWaitingDue),
 * a page of messages per transaction, as a resumed account's deliveries held while it was
 * paused wait for their expiry (docs/api-decisions.md, "Reputation"). The scan reads the
 * waiting deliveries due later (deliveries_status_due_idx) and keeps the account's: resuming
 * is rare. Resolves with the messages made due, for the caller to enqueue.
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
    const { answer } = await changeDeliveries(db, emailIds, (messages) => makeWaitingDue(messages.values(), now));
    made.push(...answer.messages.map((m) => m.emailId));
    if (emailIds.length < RESUME_PAGE_SIZE) return made;
    afterId = emailIds[emailIds.length - 1]!;
  }
}
