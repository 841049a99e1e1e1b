import { addressKey, counterDeltasByKey, reportEffect, suppressesRecipient, type DeliveryReport, type ReportEffect } from '@mailer/domain';
import { lockMessagesDeliveries, lockSenders, toLockedDelivery, type LockedDelivery } from '../lock-order';
import { inTransaction } from '../transaction';
import type { Database } from '../database';
import { moveSenderCounts } from './counters-store';
import { deliveryEventsStatement, messageState, messageStateStatements, rowState } from './delivery-store';
import { suppressRecipients } from './suppressions-store';
import { webhookEventsOutbox } from './webhook-outbox-store';

/** A report the inbound listener read, for the delivery its return-path token names. */
export interface ReportedDelivery {
  /** The delivery the token names: the first of the SMTP transaction the report is about. */
  deliveryId: string;
  /** The sending domain whose return-path host the report was addressed to. */
  domain: string;
  /** The addresses the report names (Original-Recipient, Final-Recipient), to pick the transaction's delivery. */
  recipients: readonly string[];
  report: DeliveryReport;
  at: Date;
}

/** What became of a report: applied, or why not (`unknown`: no such delivery of that domain, as forged as a bad MAC). */
export type ReportOutcome = ReportEffect | { kind: 'none'; reason: 'unknown' | 'unmatched' };

/**
 * The delivery of the token's SMTP transaction the report is about: the one whose recipient
 * it names, or the transaction's only delivery when it names none of them (forwarding may
 * have rewritten the final recipient). The transaction's deliveries are the message's
 * deliveries to the same recipient domain.
 */
function reportedDelivery(locked: readonly LockedDelivery[], named: LockedDelivery, recipients: readonly string[]): LockedDelivery | undefined {
  const transaction = locked.filter((d) => d.recipientDomain === named.recipientDomain);
  const keys = new Set(recipients.map(addressKey));
  return transaction.find((d) => keys.has(addressKey(d.recipient))) ?? (transaction.length === 1 ? transaction[0] : undefined);
}

/**
 * Applies a DSN or complaint to its delivery in one transaction (docs/api-decisions.md,
 * "Return path"): a permanent failure turns an accepted delivery `bounced` with the DSN's
 * cause (the message's derived status, the sender's counters, a `bounced` event, a
 * `hard_bounce` suppression for the hard causes and an `email.bounced` webhook); a delay adds
 * a `delayed` event; a complaint adds a `complained` event, a `complaint` suppression and an
 * `email.complained` webhook. A BCC delivery's events name no recipient and it is never
 * suppressed. Locks in the lock order: the message's deliveries, then its sender.
 */
export async function applyDeliveryReport(db: Database, input: ReportedDelivery): Promise<ReportOutcome> {
  const [owner] = await db`
    select dl.email_id, e.account_id, e.sender_id
      from deliveries dl join emails e on e.id = dl.email_id join domains d on d.id = e.domain_id
     where dl.id = ${input.deliveryId} and d.name = ${input.domain}`;
  if (!owner) return { kind: 'none', reason: 'unknown' };
  const emailId: string = owner.email_id;
  const accountId: string = owner.account_id;
  const senderId: string = owner.sender_id;
  return inTransaction(db, async (tx) => {
    const [rows] = await tx.send(lockMessagesDeliveries(tx, [emailId]));
    const locked = rows.map(toLockedDelivery);
    const named = locked.find((d) => d.id === input.deliveryId)!;
    const delivery = reportedDelivery(locked, named, input.recipients);
    if (!delivery) return { kind: 'none', reason: 'unmatched' };
    const effect = reportEffect(input.report, delivery.status);
    if (effect.kind === 'none') return effect;
    const recipient = delivery.kind === 'bcc' ? null : delivery.recipient;
    const at = input.at;
    if (effect.kind === 'event') {
      const complained = effect.type === 'complained';
      await tx.commit(
        deliveryEventsStatement(tx, [{ emailId, type: effect.type, at, kind: delivery.kind, recipient: delivery.recipient, cause: null }]),
        ...(complained && recipient ? [suppressRecipients(tx, 'complaint', [{ accountId, email: recipient, emailId, at }])] : []),
        ...(complained
          ? [
              webhookEventsOutbox(tx, [
                { accountId, type: 'email.complained', emailId, recipient, recipientKind: delivery.kind, status: delivery.status, cause: delivery.cause, attemptCount: delivery.attemptCount, at },
              ]),
            ]
          : []),
      );
      return effect;
    }
    const after = locked.map((d) => (d.id === delivery.id ? { ...rowState(d, null), status: 'bounced' as const, cause: effect.cause, updatedAt: at } : rowState(d, null)));
    const deltas = counterDeltasByKey([{ key: senderId, from: delivery.status, to: 'bounced' }]);
    await tx.commit(
      lockSenders(tx, [senderId]),
      tx.sql`update deliveries set status = 'bounced', cause = ${JSON.stringify(effect.cause)}::text::jsonb, updated_at = ${at} where id = ${delivery.id}`,
      deliveryEventsStatement(tx, [{ emailId, type: 'bounced', at, kind: delivery.kind, recipient: delivery.recipient, cause: effect.cause }]),
      ...messageStateStatements(tx, [{ emailId, at, ...messageState(after) }]),
      ...moveSenderCounts(tx, deltas),
      ...(suppressesRecipient({ kind: delivery.kind, status: 'bounced', cause: effect.cause })
        ? [suppressRecipients(tx, 'hard_bounce', [{ accountId, email: delivery.recipient, emailId, at }])]
        : []),
      webhookEventsOutbox(tx, [
        { accountId, type: 'email.bounced', emailId, recipient, recipientKind: delivery.kind, status: 'bounced', cause: effect.cause, attemptCount: delivery.attemptCount, at },
      ]),
    );
    return effect;
  });
}
