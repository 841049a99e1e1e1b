import type { Pool, PoolClient } from 'pg';
import { deriveMessageCause, deriveMessageStatus, isTerminal, type DeliveryCause, type DeliveryStatus } from '@mailer/domain';
import { withConnection } from '../one-round-trip';

/**
 * The delivery daemon's hot path (with lease-store and attempts-store): a few prepared
 * statements per batch of messages, sent straight to the pg pool (the query builder's
 * cost showed up first in profiles). Locks are taken in one order — delivery rows, the
 * account's usage row, the sender row, then the message row — so concurrent writers queue
 * up instead of deadlocking; leases only take delivery rows no one else holds (SKIP LOCKED).
 */

/** What the worker needs to build and route a message. `content` is undefined once purged. */
export interface DeliveryContext {
  email: { id: string; accountId: string; fromEmail: string; fromName: string | null; createdAt: Date };
  sender: { id: string; email: string; policy: 'require_tls' | 'opportunistic'; active: boolean };
  domain: { name: string; dkimSelector: string; dkimPrivateKeySealed: string; ready: boolean };
  content?: MessageContent;
}

export interface MessageContent {
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  messageId: string;
  hasAttachments: boolean;
}

export interface AttachmentContent {
  filename: string;
  contentType: string;
  contentId: string | null;
  content: Buffer;
}

export async function loadAttachments(pool: Pool, emailId: string): Promise<AttachmentContent[]> {
  const { rows } = await pool.query({
    name: 'delivery-attachments',
    text: 'select filename, content_type, content_id, content from attachments where email_id = $1 order by position',
    values: [emailId],
  });
  return rows.map((r) => ({ filename: r.filename, contentType: r.content_type, contentId: r.content_id, content: r.content ?? Buffer.alloc(0) }));
}

export interface LeasedDelivery {
  id: string;
  recipient: string;
  recipientDomain: string;
  kind: 'to' | 'cc' | 'bcc';
  attemptCount: number;
  createdAt: Date;
}

/** Deliveries this worker owns until `expiresAt`; the expiry doubles as the lease's token. */
export interface Lease {
  emailId: string;
  accountId: string;
  senderId: string;
  expiresAt: Date;
  deliveries: LeasedDelivery[];
  /** The message's other deliveries, as they were when the lease was taken. */
  others: DeliveryRowState[];
}

/**
 * The message's deliveries as this lease sees them, when no one else can change any of
 * them until it ends: every delivery not leased is terminal (terminal is final, and only
 * queued, deferred or expired ones can be leased). Otherwise undefined: recording then
 * locks and reads the deliveries first.
 */
export function exclusiveView(lease: Lease, now: Date): DeliveryRowState[] | undefined {
  if (!lease.others.every((d) => isTerminal(d.status))) return undefined;
  return [
    ...lease.others,
    ...lease.deliveries.map((d) => ({ id: d.id, status: 'sending' as const, cause: null, updatedAt: now, attemptCount: d.attemptCount, ours: true })),
  ];
}

/** `work` between begin and commit on one pooled connection (rolled back when it fails, see withConnection). */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  });
}

export interface DeliveryRowState {
  id: string;
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  updatedAt: Date;
  attemptCount: number;
  /** Still `sending` under the given lease. */
  ours: boolean;
}

/**
 * Locks every delivery of the message (each writer of a message's deliveries does this
 * first, so they take turns) and reads them: FOR UPDATE returns the latest committed
 * version of each row, whatever was committed while this waited.
 */
export async function lockMessageDeliveries(client: PoolClient, emailId: string, leaseExpiresAt: Date | null): Promise<DeliveryRowState[]> {
  const { rows } = await client.query({
    name: 'lock-message-deliveries',
    text: `select id, status, cause, updated_at, attempt_count, (status = 'sending' and lease_expires_at = $2) as ours
             from deliveries where email_id = $1 order by id for update`,
    values: [emailId, leaseExpiresAt],
  });
  return rows.map((r) => ({ id: r.id, status: r.status, cause: r.cause, updatedAt: r.updated_at, attemptCount: r.attempt_count, ours: r.ours === true }));
}

export interface MessageState {
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  terminal: boolean;
}

/** The message's status and cause derived from its deliveries (CONTRACT.md section 4). */
export function messageState(deliveries: readonly Pick<DeliveryRowState, 'status' | 'cause' | 'updatedAt'>[]): MessageState {
  const status = deriveMessageStatus(deliveries.map((d) => d.status));
  return { status, cause: deriveMessageCause(deliveries, status), terminal: isTerminal(status) };
}

/**
 * When the message is next owed work: the earliest due queued/deferred delivery, or the
 * expiry of a lease still held (a worker that dies holding one is taken over then).
 */
export async function nextObligation(pool: Pool, emailId: string): Promise<Date | undefined> {
  const { rows } = await pool.query({
    name: 'next-obligation',
    text: 'select status, next_attempt_at, lease_expires_at from deliveries where email_id = $1',
    values: [emailId],
  });
  const due = rows
    .filter((r) => !isTerminal(r.status))
    .map((r): number => (r.status === 'sending' ? r.lease_expires_at : r.next_attempt_at).getTime());
  return due.length > 0 ? new Date(Math.min(...due)) : undefined;
}
