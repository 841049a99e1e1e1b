import {
  CANCELED_BY_OPERATOR,
  expiredWhileHeldCause,
  isHeldPastMaxAge,
  queueActionApplies,
  WAITING_STATUSES,
  type QueueAction,
} from '@mailer/domain';
import type { Database, Queryable, Statement } from '../database';
import { lockedMessagesFrom, lockMessages, type DeliveryRow } from '../deliveries/locked-messages';
import { writeTransitions, type Transition } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';

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

export interface QueueActionResult {
  /** Deliveries the action changed. */
  changed: number;
  /** The messages they belong to, each with its account: what a release or a flush enqueues. */
  messages: { emailId: string; accountId: string }[];
}

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
 * Locks the candidates' messages page by page and moves those of their deliveries that
 * `decide` picks, through the transition writer: a page is one transaction, so a delivery a
 * claim or an attempt changed meanwhile is judged as it now is.
 */
async function moveSelected(
  db: Database,
  candidates: (afterId: string) => Statement,
  decide: (delivery: DeliveryRow) => Transition | undefined,
): Promise<QueueActionResult> {
  const result: QueueActionResult = { changed: 0, messages: [] };
  for (let afterId = ''; ; ) {
    const page = (await candidates(afterId)).map((r) => ({ id: r.id as string, emailId: r.email_id as string }));
    if (page.length === 0) return result;
    afterId = page[page.length - 1]!.id;
    const ids = new Set(page.map((r) => r.id));
    await inTransaction(db, async (tx) => {
      const { locked } = await tx.send({ locked: lockMessages(tx, page.map((r) => r.emailId)) });
      const messages = [...lockedMessagesFrom(locked).values()];
      const transitions: Transition[] = [];
      for (const message of messages) {
        const moved = message.deliveries.filter((d) => ids.has(d.id)).flatMap((d) => decide(d) ?? []);
        if (moved.length === 0) continue;
        transitions.push(...moved);
        result.messages.push({ emailId: message.emailId, accountId: message.accountId });
      }
      if (transitions.length > 0) await tx.commit(...writeTransitions(tx, { messages, transitions }).statements);
      result.changed += transitions.length;
    });
    if (page.length < PAGE) return result;
  }
}

/** The move of `action` for one delivery it applies to (queueActionApplies). */
function actionTransition(action: QueueAction, d: DeliveryRow, now: Date): Transition {
  switch (action) {
    case 'hold':
      return { reason: 'held_by_operator', delivery: d.id, to: d.status, cause: d.cause, at: now };
    case 'release':
      return { reason: 'released_by_operator', delivery: d.id, to: d.status, cause: d.cause, at: now, nextAttemptAt: now };
    case 'delete':
      return { reason: 'deleted_by_operator', delivery: d.id, to: 'failed', cause: CANCELED_BY_OPERATOR, at: now };
    case 'flush':
      return { reason: 'made_due', delivery: d.id, to: 'deferred', cause: d.cause, at: now, nextAttemptAt: now };
  }
}

/**
 * Holds, releases, deletes or flushes the selected waiting deliveries (queueActionApplies says
 * which of them each action changes); a released or flushed delivery is due `now`, and the
 * caller enqueues the messages returned.
 */
export function applyQueueAction(db: Database, action: QueueAction, selection: QueueSelection, now: Date): Promise<QueueActionResult> {
  return moveSelected(
    db,
    (afterId) => selected(db, selection, afterId),
    (d) => (queueActionApplies(action, d) ? actionTransition(action, d, now) : undefined),
  );
}

/**
 * The daemons' expiry of holds: every held delivery past its maximum age (isHeldPastMaxAge)
 * ends `failed` / `retries_exhausted`, with its event and webhook. The candidates come from
 * the held deliveries' own index. Resolves with how many ended.
 */
export async function expireHeldDeliveries(db: Database, now: Date, maxDeliveryAgeMs: number): Promise<number> {
  const oldest = new Date(now.getTime() - maxDeliveryAgeMs);
  const { changed } = await moveSelected(
    db,
    (afterId) => db`
      select id, email_id from deliveries
       where held_at is not null and created_at <= ${oldest} and id > ${afterId}
       order by id limit ${PAGE}`,
    (d) =>
      isHeldPastMaxAge(d, now, maxDeliveryAgeMs)
        ? { reason: 'expired_while_held', delivery: d.id, to: 'failed', cause: expiredWhileHeldCause(d.cause), at: now }
        : undefined,
  );
  return changed;
}
