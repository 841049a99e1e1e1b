import { addressKey, reportEffect, type ReportEffect, type ReportFinding } from '@mailer/domain';
import type { Database } from '../database';
import { lockedMessagesFrom, lockMessages } from '../deliveries/locked-messages';
import { writeTransitions } from '../deliveries/transition-writer';
import { inTransaction } from '../transaction';

/** A report the inbound listener read, for the delivery its return-path token names. */
export interface ReportedDelivery {
  /** The delivery the token names: the report may change this one only. */
  deliveryId: string;
  /** The sending domain whose return-path host the report was addressed to. */
  domain: string;
  /** The addresses the report names (Original-Recipient, Final-Recipient). */
  recipients: readonly string[];
  report: ReportFinding;
  at: Date;
}

/**
 * What became of a report: applied, or why not (`unknown`: no such delivery of that domain, as
 * forged as a bad MAC; `unmatched`: the report names another recipient than the token's).
 */
export type ReportOutcome = ReportEffect | { kind: 'none'; reason: 'unknown' | 'unmatched' };

/**
 * Applies a DSN or complaint to the delivery its token names, in one transaction
 * (docs/api-decisions.md, "Return path"), through the transition writer: a permanent failure
 * turns an accepted delivery `bounced` (`bounce_reported`); a delay or a complaint is an
 * observation of the delivery, applied once. A report that names recipients must name the
 * token's (forwarding may have rewritten a final recipient, so a report naming none is the
 * token's): a recipient of the same transaction can never report on another.
 */
export async function applyDeliveryReport(db: Database, input: ReportedDelivery): Promise<ReportOutcome> {
  const [owner] = await db`
    select dl.email_id from deliveries dl join emails e on e.id = dl.email_id join domains d on d.id = e.domain_id
     where dl.id = ${input.deliveryId} and d.name = ${input.domain}`;
  if (!owner) return { kind: 'none', reason: 'unknown' };
  return inTransaction(db, async (tx) => {
    const { locked } = await tx.send({ locked: lockMessages(tx, [owner.email_id as string]) });
    const message = lockedMessagesFrom(locked).get(owner.email_id);
    const delivery = message?.deliveries.find((d) => d.id === input.deliveryId);
    if (!message || !delivery) return { kind: 'none', reason: 'unknown' };
    const named = new Set(input.recipients.map(addressKey));
    if (named.size > 0 && !named.has(addressKey(delivery.recipient))) return { kind: 'none', reason: 'unmatched' };
    const effect = reportEffect(input.report, delivery);
    if (effect.kind === 'none') return effect;
    const written =
      effect.kind === 'bounce'
        ? writeTransitions(tx, { messages: [message], transitions: [{ reason: 'bounce_reported', delivery: delivery.id, to: 'bounced', cause: effect.cause, at: input.at }] })
        : writeTransitions(tx, { messages: [message], observations: [{ observation: effect.observation, delivery: delivery.id, at: input.at }] });
    await tx.commit(...written.statements);
    return effect;
  });
}
