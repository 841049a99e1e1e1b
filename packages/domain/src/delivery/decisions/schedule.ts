import { CANCELED, isCancelable } from '../cancel';
import type { DeliveryChanges, MessageDeliveries, Transition } from '../delivery-records';

/**
 * A cancel (docs/api-decisions.md, "Scheduled send and cancel"): while none of the message's
 * deliveries has started (isCancelable), each queued one ends `failed` with cause `canceled`.
 */
export function cancelMessage(message: MessageDeliveries, now: Date): DeliveryChanges<'canceled' | 'not_cancelable'> {
  if (!isCancelable(message.deliveries)) return { answer: 'not_cancelable' };
  const transitions = message.deliveries
    .filter((d) => d.status === 'queued')
    .map((d): Transition => ({ reason: 'canceled', delivery: d.id, to: 'failed', cause: CANCELED, at: now }));
  return { transitions, answer: 'canceled' };
}

/**
 * A new scheduled time, allowed exactly while a cancel is: each queued delivery is first owed
 * at `dueAt` (`rescheduled`).
 */
export function rescheduleMessage(message: MessageDeliveries, dueAt: Date, now: Date): DeliveryChanges<'rescheduled' | 'not_reschedulable'> {
  if (!isCancelable(message.deliveries)) return { answer: 'not_reschedulable' };
  const transitions = message.deliveries
    .filter((d) => d.status === 'queued')
    .map((d): Transition => ({ reason: 'rescheduled', delivery: d.id, to: 'queued', cause: d.cause, at: now, nextAttemptAt: dueAt }));
  return { transitions, answer: 'rescheduled' };
}
