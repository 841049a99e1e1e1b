import type { DeliveryRecord, MessageDeliveries } from '@mailer/domain';
import type { Row, Statement } from '../database';
import { enterLevel } from '../lock-order';
import type { Transaction } from '../transaction';

const toDeliveryRecord = (r: Row): DeliveryRecord => ({
  id: r.id,
  emailId: r.email_id,
  recipient: r.recipient,
  recipientDomain: r.recipient_domain,
  kind: r.kind,
  position: r.position,
  status: r.status,
  cause: r.cause,
  attemptCount: r.attempt_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  nextAttemptAt: r.next_attempt_at,
  leaseExpiresAt: r.lease_expires_at,
  leaseToken: r.lease_token,
  delayReportedAt: r.delay_reported_at,
  complainedAt: r.complained_at,
  unsubscribedAt: r.unsubscribed_at,
  openedAt: r.opened_at,
  clickedAt: r.clicked_at,
  heldAt: r.held_at,
});

/**
 * Level 1 of the lock order, waiting for holders: every delivery of these messages, with each message's
 * account and sender. Read with lockedMessagesFrom.
 */
export function lockMessages(tx: Transaction, emailIds: readonly string[]): Statement {
  const ids = enterLevel(tx, 'deliveries', emailIds);
  return tx.sql`
    select d.id, d.email_id, d.recipient, d.recipient_domain, d.kind, d.position, d.status, d.cause, d.attempt_count,
           d.created_at, d.updated_at, d.next_attempt_at, d.lease_expires_at, d.lease_token, d.delay_reported_at, d.complained_at, d.unsubscribed_at, d.opened_at, d.clicked_at, d.held_at,
           d.account_id, (select e.sender_id from emails e where e.id = d.email_id) as sender_id,
           (select e.test from emails e where e.id = d.email_id) as test,
           (select e.type from emails e where e.id = d.email_id) as stream
      from deliveries d
     where d.email_id = any(${ids}::text[])
     order by d.id
       for update`;
}

/** The messages lockMessages found, by id; a message that does not exist is absent. */
export function lockedMessagesFrom(rows: readonly Row[]): Map<string, MessageDeliveries> {
  const messages = new Map<string, MessageDeliveries>();
  for (const r of rows) {
    let message = messages.get(r.email_id);
    if (!message) messages.set(r.email_id, (message = { emailId: r.email_id, accountId: r.account_id, senderId: r.sender_id, test: r.test, stream: r.stream, deliveries: [] }));
    message.deliveries.push(toDeliveryRecord(r));
  }
  return messages;
}
