import type { DeliveryChanges, MessageDeliveries } from '../delivery-records';
import { isAllowedObservation } from '../transitions';

/**
 * What became of an unsubscribe: applied, or why not (`unknown`: the message holds no such
 * delivery, as good as a forged token; `already_unsubscribed`: it was applied before;
 * `not_delivered`: the delivery is in no status an unsubscribe applies in).
 */
export type UnsubscribeOutcome = { kind: 'unsubscribed' } | { kind: 'none'; reason: 'unknown' | 'already_unsubscribed' | 'not_delivered' };

/**
 * A recipient's one-click unsubscribe (the List-Unsubscribe URL or mailto: address of the
 * delivery its token names; docs/api-decisions.md, "Unsubscribe"): the observation
 * `unsubscribed`, applied once, in the statuses its row names. Its effects (the event, the
 * webhook, the suppression) are the row's.
 */
export function unsubscribe(message: MessageDeliveries | undefined, deliveryId: string, at: Date): DeliveryChanges<UnsubscribeOutcome> {
  const delivery = message?.deliveries.find((d) => d.id === deliveryId);
  if (!delivery) return { answer: { kind: 'none', reason: 'unknown' } };
  if (delivery.unsubscribedAt) return { answer: { kind: 'none', reason: 'already_unsubscribed' } };
  if (!isAllowedObservation('unsubscribed', delivery)) return { answer: { kind: 'none', reason: 'not_delivered' } };
  return { observations: [{ observation: 'unsubscribed', delivery: delivery.id, at }], answer: { kind: 'unsubscribed' } };
}
