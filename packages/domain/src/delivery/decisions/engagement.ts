import type { DeliveryChanges, Engagement, MessageDeliveries } from '../delivery-records';
import { isAllowedObservation } from '../transitions';

/**
 * What became of an open or a click: recorded, or why not (`unknown`: the message holds no such
 * delivery, or one that is never tracked, a BCC delivery or a test message's: as good as a
 * forged token; `not_delivered`: the delivery is in no status its row names, as a click racing
 * the record of its acceptance).
 */
export type EngagementOutcome = { kind: 'recorded' } | { kind: 'none'; reason: 'unknown' | 'not_delivered' };

/**
 * A recipient's mail client fetched the open pixel (`opened`) or followed a tracked link
 * (`clicked`) of the delivery its token names (docs/api-decisions.md, "Opens and clicks"): the
 * observation, with what the request showed. Every one is recorded; the row stamps the first.
 */
export function recordEngagement(
  message: MessageDeliveries | undefined,
  deliveryId: string,
  observation: 'opened' | 'clicked',
  at: Date,
  engagement: Engagement,
): DeliveryChanges<EngagementOutcome> {
  const delivery = message?.deliveries.find((d) => d.id === deliveryId);
  if (!message || !delivery || delivery.kind === 'bcc' || message.test) return { answer: { kind: 'none', reason: 'unknown' } };
  if (!isAllowedObservation(observation, delivery)) return { answer: { kind: 'none', reason: 'not_delivered' } };
  return { observations: [{ observation, delivery: delivery.id, at, engagement }], answer: { kind: 'recorded' } };
}

/** One open or click to record: the delivery its token named, in the message it belongs to. */
export interface EngagementRecord {
  emailId: string;
  deliveryId: string;
  observation: 'opened' | 'clicked';
  at: Date;
  engagement: Engagement;
}

/**
 * Opens and clicks that arrived together, recorded in one write: each as recordEngagement
 * decides it alone, in arrival order (observations change no status, so none decides
 * another); the answers are in the records' order.
 */
export function recordEngagements(messages: ReadonlyMap<string, MessageDeliveries>, records: readonly EngagementRecord[]): DeliveryChanges<EngagementOutcome[]> {
  const decided = records.map((r) => recordEngagement(messages.get(r.emailId), r.deliveryId, r.observation, r.at, r.engagement));
  return { observations: decided.flatMap((d) => d.observations ?? []), answer: decided.map((d) => d.answer) };
}
