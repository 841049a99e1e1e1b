import { addressKey } from '../../senders/sender-email';
import { reportEffect, type ReportEffect, type ReportFinding } from '../../return-path/delivery-reports';
import type { DeliveryChanges, MessageDeliveries } from '../delivery-records';

/** A report the inbound listener read, for the delivery its return-path token names. */
export interface DeliveryReportFor {
  /** The delivery the token names: the report may change this one only. */
  deliveryId: string;
  /** The addresses the report names (Original-Recipient, Final-Recipient). */
  recipients: readonly string[];
  report: ReportFinding;
  at: Date;
}

/**
 * What became of a report: applied, or why not (`unknown`: no such delivery, as forged as a
 * bad MAC; `unmatched`: the report names another recipient than the token's).
 */
export type ReportOutcome = ReportEffect | { kind: 'none'; reason: 'unknown' | 'unmatched' };

/**
 * A DSN or complaint applied to the delivery its token names (docs/api-decisions.md, "Return
 * path"): a permanent failure turns an accepted delivery `bounced` (`bounce_reported`); a delay
 * or a complaint is an observation of the delivery, applied once (reportEffect). A report that
 * names recipients must name the token's (forwarding may have rewritten a final recipient, so a
 * report naming none is the token's): a recipient of the same transaction can never report on
 * another.
 */
export function applyReport(message: MessageDeliveries | undefined, input: DeliveryReportFor): DeliveryChanges<ReportOutcome> {
  const delivery = message?.deliveries.find((d) => d.id === input.deliveryId);
  if (!delivery) return { answer: { kind: 'none', reason: 'unknown' } };
  const named = new Set(input.recipients.map(addressKey));
  if (named.size > 0 && !named.has(addressKey(delivery.recipient))) return { answer: { kind: 'none', reason: 'unmatched' } };
  const effect = reportEffect(input.report, delivery);
  if (effect.kind === 'bounce') {
    return { transitions: [{ reason: 'bounce_reported', delivery: delivery.id, to: 'bounced', cause: effect.cause, at: input.at }], answer: effect };
  }
  if (effect.kind === 'observation') return { observations: [{ observation: effect.observation, delivery: delivery.id, at: input.at }], answer: effect };
  return { answer: effect };
}
