import type { DeliveryCause, DeliveryStatus } from '@mailer/domain';
import type { Database, Row } from './database';
import type { Transaction } from './transaction';

/**
 * The one order in which transactions lock the rows that several writers share, so that
 * they queue behind each other instead of deadlocking:
 *
 *   1. deliveries, by id (claims skip the ones another transaction holds)
 *   2. account_usage, by account id (intake's plan check; the active-delivery counter)
 *   3. senders, by id (their `last_used_at` and delivery counters)
 *   4. webhook_endpoints, by id (their failing streak and status)
 *   5. webhook_deliveries, by id (their attempts and status)
 *
 * A message row (`emails`) is only updated by a transaction that holds the locks of the
 * deliveries it reports on, after them. Every writer of these tables takes its locks
 * through the functions below before it writes; a transaction that asks for a level at or
 * below one it already holds is a programming error, thrown before anything is sent.
 * Within a level, rows are locked in key order. A change of one webhook endpoint (its owner's
 * update or deletion) is one statement that updates the endpoint row first and then ends its
 * pending webhook deliveries (endPendingWebhookDeliveries): levels 4 then 5, as here.
 */
export const LOCK_LEVELS = ['deliveries', 'account_usage', 'senders', 'webhook_endpoints', 'webhook_deliveries'] as const;
type Level = (typeof LOCK_LEVELS)[number];

const held = new WeakMap<Transaction, number>();

function enter(tx: Transaction, level: Level): void {
  const rank = LOCK_LEVELS.indexOf(level);
  const previous = held.get(tx) ?? -1;
  if (rank <= previous) throw new Error(`lock order violated: ${level} after ${LOCK_LEVELS[previous]}`);
  held.set(tx, rank);
}

/** A delivery as its lock reads it: the latest committed version. */
export interface LockedDelivery {
  id: string;
  emailId: string;
  recipient: string;
  recipientDomain: string;
  kind: 'to' | 'cc' | 'bcc';
  /** Its place in the message: RCPT TO and attempts list recipients in this order. */
  position: number;
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
  leaseToken: string | null;
}

export const toLockedDelivery = (r: Row): LockedDelivery => ({
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
});

const DELIVERY_COLUMNS = (sql: Database) =>
  sql`id, email_id, recipient, recipient_domain, kind, position, status, cause, attempt_count, created_at, updated_at, next_attempt_at, lease_expires_at, lease_token`;

/** Level 1, waiting for holders: these deliveries. Read the rows with toLockedDelivery. */
export function lockDeliveries(tx: Transaction, ids: readonly string[]) {
  enter(tx, 'deliveries');
  return tx.sql`select ${DELIVERY_COLUMNS(tx.sql)} from deliveries where id = any(${ids as string[]}::text[]) order by id for update`;
}

/** Level 1, waiting for holders: every delivery of these messages. */
export function lockMessagesDeliveries(tx: Transaction, emailIds: readonly string[]) {
  enter(tx, 'deliveries');
  return tx.sql`select ${DELIVERY_COLUMNS(tx.sql)} from deliveries where email_id = any(${emailIds as string[]}::text[]) order by id for update`;
}

/**
 * Level 1, without waiting: the deliveries of these messages that no other transaction
 * holds (a delivery being claimed or recorded elsewhere is that transaction's).
 */
export function lockFreeDeliveriesOf(tx: Transaction, emailIds: readonly string[]) {
  enter(tx, 'deliveries');
  return tx.sql`select ${DELIVERY_COLUMNS(tx.sql)} from deliveries where email_id = any(${emailIds as string[]}::text[]) order by id for update skip locked`;
}

/**
 * Level 1, waiting for holders: the deliveries still `sending` under the given leases
 * (`ids[i]` under the lease whose token is `tokens[i]`); a delivery recorded, released or
 * taken over meanwhile is left out, as its latest version reads.
 */
export function lockLeasedDeliveries(tx: Transaction, ids: readonly string[], tokens: readonly string[]) {
  enter(tx, 'deliveries');
  return tx.sql`
    select d.id from deliveries d
      join unnest(${ids as string[]}::text[], ${tokens as string[]}::text[]) as x(id, token) on d.id = x.id and d.lease_token = x.token
     where d.status = 'sending'
     order by d.id
       for update of d`;
}

/** Level 2: the accounts' usage rows, with the figures read after it (see usage-store). */
export function lockAccountUsage(tx: Transaction, accountIds: readonly string[]) {
  enter(tx, 'account_usage');
  return tx.sql`select account_id from account_usage where account_id = any(${[...new Set(accountIds)].sort()}::text[]) order by account_id for no key update`;
}

/** The rows of a level keyed by `id` (its table's name), in id order. */
function lockById(tx: Transaction, level: 'senders' | 'webhook_endpoints' | 'webhook_deliveries', ids: readonly string[]) {
  enter(tx, level);
  return tx.sql`select id from ${tx.sql(level)} where id = any(${[...new Set(ids)].sort()}::text[]) order by id for no key update`;
}

/** Level 3: sender rows. */
export const lockSenders = (tx: Transaction, senderIds: readonly string[]) => lockById(tx, 'senders', senderIds);

/** Level 4: webhook endpoint rows. */
export const lockWebhookEndpoints = (tx: Transaction, endpointIds: readonly string[]) => lockById(tx, 'webhook_endpoints', endpointIds);

/** Level 5: webhook delivery rows. */
export const lockWebhookDeliveries = (tx: Transaction, deliveryIds: readonly string[]) => lockById(tx, 'webhook_deliveries', deliveryIds);
