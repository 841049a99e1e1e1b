import { CANCELED_BY_OPERATOR } from '../cancel';
import type { DeliveryChanges, DeliveryRecord, MessageDeliveries, Transition } from '../delivery-records';
import { expiredWhileHeldCause, isHeldPastMaxAge, isWaiting, queueActionApplies, type QueueAction } from '../hold';

/** The messages a decision over several of them changed, each with its account: what a caller enqueues. */
export interface ChangedMessages {
  /** Deliveries changed. */
  changed: number;
  messages: { emailId: string; accountId: string }[];
}

/** One move per delivery `move` picks, among the messages' deliveries `among` names (every one when absent). */
function movesOf(
  messages: Iterable<MessageDeliveries>,
  move: (delivery: DeliveryRecord) => Transition | undefined,
  among?: ReadonlySet<string>,
): DeliveryChanges<ChangedMessages> {
  const transitions: Transition[] = [];
  const answer: ChangedMessages = { changed: 0, messages: [] };
  for (const message of messages) {
    const moved = message.deliveries.filter((d) => !among || among.has(d.id)).flatMap((d) => move(d) ?? []);
    if (moved.length === 0) continue;
    transitions.push(...moved);
    answer.changed += moved.length;
    answer.messages.push({ emailId: message.emailId, accountId: message.accountId });
  }
  return { transitions, answer };
}

/**
 * An operator's retry (`email retry`): the message's deferred deliveries are due now
 * (`made_due`).
 */
export function retryDeferred(message: MessageDeliveries, now: Date): DeliveryChanges<ChangedMessages> {
  return movesOf([message], (d) =>
    d.status === 'deferred' ? { reason: 'made_due', delivery: d.id, to: 'deferred', cause: d.cause, at: now, nextAttemptAt: now } : undefined,
  );
}

/**
 * A resumed account (docs/api-decisions.md, "Reputation"): every waiting delivery due later
 * (held while the account was paused, due at its expiry) is due now (`made_due`).
 */
export function makeWaitingDue(messages: Iterable<MessageDeliveries>, now: Date): DeliveryChanges<ChangedMessages> {
  return movesOf(messages, (d) =>
    isWaiting(d.status) && d.nextAttemptAt > now ? { reason: 'made_due', delivery: d.id, to: d.status, cause: d.cause, at: now, nextAttemptAt: now } : undefined,
  );
}

/** The move of `action` for one delivery it applies to (queueActionApplies). */
function actionMove(action: QueueAction, d: DeliveryRecord, now: Date): Transition {
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
 * An operator's hold, release, delete or flush of the selected deliveries (`selected`, judged
 * as locked: queueActionApplies says which of them the action changes); a released or
 * flushed delivery is due now (docs/api-decisions.md, "Queue operations").
 */
export function applyQueueActionTo(
  messages: Iterable<MessageDeliveries>,
  selected: ReadonlySet<string>,
  action: QueueAction,
  now: Date,
): DeliveryChanges<ChangedMessages> {
  return movesOf(messages, (d) => (queueActionApplies(action, d) ? actionMove(action, d, now) : undefined), selected);
}

/**
 * The expiry of holds: a selected held delivery past its maximum age (isHeldPastMaxAge) ends
 * `failed` (`expired_while_held`, retries exhausted).
 */
export function expireHeld(
  messages: Iterable<MessageDeliveries>,
  selected: ReadonlySet<string>,
  now: Date,
  maxDeliveryAgeMs: number,
): DeliveryChanges<ChangedMessages> {
  return movesOf(
    messages,
    (d) =>
      isHeldPastMaxAge(d, now, maxDeliveryAgeMs)
        ? { reason: 'expired_while_held', delivery: d.id, to: 'failed', cause: expiredWhileHeldCause(d.cause), at: now }
        : undefined,
    selected,
  );
}
