import { CANCELED, counterDeltasByKey, isCancelable } from '@mailer/domain';
import type { Database } from '../database';
import { lockAccountUsage, lockMessagesDeliveries, lockSenders, toLockedDelivery } from '../lock-order';
import { inTransaction } from '../transaction';
import { moveActiveCounts, moveSenderCounts } from './counters-store';
import { deliveryEventsStatement, messageState, messageStateStatements } from './delivery-store';
import { webhookEventsOutbox } from './webhook-outbox-store';

export type CancelOutcome = 'canceled' | 'not_cancelable' | 'not_found';

/**
 * Cancels a message of the account while none of its deliveries has started
 * (isCancelable): each queued delivery ends `failed` with cause `canceled`, with its event
 * and `email.failed` webhook, the counters it held are released (counterDeltas: the active
 * deliveries of the plan, the sender's), and the message becomes terminal (content
 * purged). The deliveries' locks are taken first, waiting for a claim in progress
 * (lock-order): a claim that leased them first makes the cancel find them `sending`; a
 * claim after the cancel finds them terminal and owes nothing.
 */
export async function cancelEmail(db: Database, accountId: string, emailId: string, now: Date): Promise<CancelOutcome> {
  return inTransaction(db, async (tx) => {
    const [owner] = await tx.send(tx.sql`select sender_id from emails where id = ${emailId} and account_id = ${accountId}`);
    if (owner!.length === 0) return 'not_found';
    const senderId = owner![0]!.sender_id as string;
    const [locked] = await tx.send(lockMessagesDeliveries(tx, [emailId]));
    const deliveries = locked!.map(toLockedDelivery);
    if (!isCancelable(deliveries)) return 'not_cancelable';
    const canceled = deliveries.filter((d) => d.status === 'queued');
    const transitions = canceled.map(() => ({ from: 'queued' as const, to: 'failed' as const }));
    const after = deliveries.map((d) => (d.status === 'queued' ? { status: 'failed' as const, cause: CANCELED, updatedAt: now } : d));
    await tx.commit(
      lockAccountUsage(tx, [accountId]),
      lockSenders(tx, [senderId]),
      tx.sql`
        update deliveries set status = 'failed', cause = ${JSON.stringify(CANCELED)}::text::jsonb, updated_at = ${now}
         where id = any(${canceled.map((d) => d.id)}::text[])`,
      deliveryEventsStatement(
        tx,
        canceled.map((d) => ({ emailId, type: 'failed', at: now, kind: d.kind, recipient: d.recipient, cause: CANCELED })),
      ),
      webhookEventsOutbox(
        tx,
        canceled.map((d) => ({
          accountId,
          type: 'email.failed' as const,
          emailId,
          recipient: d.kind === 'bcc' ? null : d.recipient,
          recipientKind: d.kind,
          status: 'failed' as const,
          cause: CANCELED,
          attemptCount: 0,
          at: now,
        })),
      ),
      ...moveActiveCounts(tx, counterDeltasByKey(transitions.map((t) => ({ key: accountId, ...t })))),
      ...moveSenderCounts(tx, counterDeltasByKey(transitions.map((t) => ({ key: senderId, ...t })))),
      ...messageStateStatements(tx, [{ emailId, at: now, ...messageState(after) }]),
    );
    return 'canceled';
  });
}
