import {
  applyQueueActionTo,
  expireHeld,
  WAITING_STATUSES,
  type ChangedMessages,
  type DeliveryChanges,
  type MessageDeliveries,
  type QueueAction,
} from '@mailer/domain';
import type { Database, Queryable, Statement } from '../database';
import { changeDeliveries } from '../deliveries/change-deliveries';

/**
 * Which waiting deliveries an operator acts on (docs/api-decisions.md, "Queue operations"):
 * every criterion given must hold. The caller gives at least one.
 */
export interface QueueSelection {
  emailId?: string;
  deliveryId?: string;
  accountId?: string;
  /** Recipient domains (a destination's, resolved by the caller). */
  recipientDomains?: readonly string[];
}

/** Deliveries the action changed, and their messages, each with its account: what a release or a flush enqueues. */
export type QueueActionResult = ChangedMessages;

/** Deliveries per transaction: each page's messages are locked together. */
const PAGE = 500;

/** The waiting deliveries the selection names, after `afterId` in id order: candidates, decided on as locked. */
function selected(db: Queryable, selection: QueueSelection, afterId: string) {
  const { emailId, deliveryId, accountId, recipientDomains } = selection;
  return db`
    select id, email_id from deliveries
     where status = any(${WAITING_STATUSES}::text[]) and id > ${afterId}
       ${emailId !== undefined ? db`and email_id = ${emailId}` : db``}
       ${deliveryId !== undefined ? db`and id = ${deliveryId}` : db``}
       ${accountId !== undefined ? db`and account_id = ${accountId}` : db``}
       ${recipientDomains !== undefined ? db`and recipient_domain = any(${[...recipientDomains]}::text[])` : db``}
     order by id limit ${PAGE}`;
}

/**
 * Changes the candidates' messages page by page, as `decide` judges the candidates among
 * their locked deliveries: a page is one transaction, so a delivery a claim or an attempt
 * changed meanwhile is judged as it now is.
 */
async function changeSelected(
  db: Database,
  candidates: (afterId: string) => Statement,
  decide: (messages: Iterable<MessageDeliveries>, selected: ReadonlySet<string>) => DeliveryChanges<ChangedMessages>,
): Promise<ChangedMessages> {
  const result: ChangedMessages = { changed: 0, messages: [] };
  for (let afterId = ''; ; ) {
    const page = (await candidates(afterId)).map((r) => ({ id: r.id as string, emailId: r.email_id as string }));
    if (page.length === 0) return result;
    afterId = page[page.length - 1]!.id;
    const selected = new Set(page.map((r) => r.id));
    const { answer } = await changeDeliveries(db, [...new Set(page.map((r) => r.emailId))], (messages) => decide(messages.values(), selected));
    result.changed += answer.changed;
    result.messages.push(...answer.messages);
    if (page.length < PAGE) return result;
  }
}

/**
 * Holds, releases, deletes or flushes the selected waiting deliveries (applyQueueActionTo);
 * the caller enqueues the messages returned.
 */
export function applyQueueAction(db: Database, action: QueueAction, selection: QueueSelection, now: Date): Promise<QueueActionResult> {
  return changeSelected(
    db,
    (afterId) => selected(db, selection, afterId),
    (messages, chosen) => applyQueueActionTo(messages, chosen, action, now),
  );
}

/**
 * The daemons' expiry of holds: every held delivery past its maximum age ends `failed`
 * (expireHeld), with its event and webhook. The candidates come from the held deliveries'
 * own index. Resolves with how many ended.
 */
export async function expireHeldDeliveries(db: Database, now: Date, maxDeliveryAgeMs: number): Promise<number> {
  const oldest = new Date(now.getTime() - maxDeliveryAgeMs);
  const { changed } = await changeSelected(
    db,
    (afterId) => db`
      select id, email_id from deliveries
       where held_at is not null and created_at <= ${oldest} and id > ${afterId}
       order by id limit ${PAGE}`,
    (messages, chosen) => expireHeld(messages, chosen, now, maxDeliveryAgeMs),
  );
  return changed;
}
