import { deriveMessageCause, deriveMessageStatus, isTerminal, type DeliveryCause, type DeliveryStatus } from '@mailer/domain';
import { booleansParam, timestampsParam, type Database, type Row } from '../database';
import type { LockedDelivery } from '../lock-order';
import type { Transaction } from '../transaction';

/**
 * What the worker needs to route a message and hold its deliveries. Its content and signing
 * key are read only when it is built (loadMessageContents): a daemon holds up to
 * WORKER_ACTIVE_LIMIT deliveries, whose bodies may each be megabytes, and every byte held
 * that long is copied by the collector before it is old (docs/api-decisions.md, "Scheduling").
 * Messages claimed together share their sender's and domain's objects.
 */
export interface DeliveryContext {
  email: { id: string; accountId: string; fromEmail: string; fromName: string | null; createdAt: Date };
  sender: { id: string; email: string; policy: 'require_tls' | 'opportunistic'; active: boolean };
  /** `returnPathVerified`: MAIL FROM is a return-path address of the domain (envelopeSender). */
  domain: { name: string; dkimSelector: string; ready: boolean; returnPathVerified: boolean };
}

export interface MessageContent {
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  messageId: string;
  replyTo: string[];
  /** Extra header fields, as intake checked them. */
  headers: { name: string; value: string }[];
  hasAttachments: boolean;
  /** The sending domain's DKIM key as stored (sealed), read with the content that it signs. */
  dkimPrivateKeySealed: string;
}

export interface AttachmentContent {
  filename: string;
  contentType: string;
  contentId: string | null;
  content: Buffer;
}

/**
 * The content of each message that still has it (a terminal message loses its body), in one
 * statement for the batch. A message's content never changes while it has one, so it is read
 * without a lock.
 */
export async function loadMessageContents(db: Database, emailIds: readonly string[]): Promise<Map<string, MessageContent>> {
  const rows = await db`
    select e.id, e."to", e.cc, e.subject, e.text_body, e.html_body, e.message_id_header, e.reply_to, e.headers,
           exists (select 1 from attachments a where a.email_id = e.id) as has_attachments, d.dkim_private_key_sealed
      from emails e
      join domains d on d.id = e.domain_id
     where e.id = any(${[...new Set(emailIds)]}::text[]) and e.content_purged_at is null`;
  return new Map(
    rows.map((r) => [
      r.id as string,
      {
        to: r.to,
        cc: r.cc,
        subject: r.subject,
        text: r.text_body,
        html: r.html_body,
        messageId: r.message_id_header,
        replyTo: r.reply_to,
        headers: r.headers,
        hasAttachments: r.has_attachments,
        dkimPrivateKeySealed: r.dkim_private_key_sealed,
      },
    ]),
  );
}

export async function loadAttachments(db: Database, emailId: string): Promise<AttachmentContent[]> {
  const rows = await db`select filename, content_type, content_id, content from attachments where email_id = ${emailId} order by position`;
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

/**
 * Deliveries this worker owns while the lease lasts. `token` names the lease for as long as
 * it is held (renewals push the expiry back, the token stays); `expiresAt` is the expiry the
 * claim wrote.
 */
export interface Lease {
  emailId: string;
  accountId: string;
  senderId: string;
  token: string;
  expiresAt: Date;
  deliveries: LeasedDelivery[];
  /** The message's other deliveries, as they were when the lease was taken. */
  others: DeliveryRowState[];
}

export interface DeliveryRowState {
  id: string;
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  updatedAt: Date;
  attemptCount: number;
  /** Still `sending` under the lease in question. */
  ours: boolean;
}

/** Whether the delivery, as locked, is still `sending` under the lease named `token`. */
export const heldBy = (delivery: Pick<LockedDelivery, 'status' | 'leaseToken'>, token: string): boolean =>
  delivery.status === 'sending' && delivery.leaseToken === token;

/** A locked delivery as the lease named `token` sees it. */
export const rowState = (d: LockedDelivery, token: string | null): DeliveryRowState => ({
  id: d.id,
  status: d.status,
  cause: d.cause,
  updatedAt: d.updatedAt,
  attemptCount: d.attemptCount,
  ours: token !== null && heldBy(d, token),
});

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

export interface MessageState {
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  terminal: boolean;
}

/** The message's status and cause derived from its deliveries (docs/api-decisions.md, "Emails"). */
export function messageState(deliveries: readonly Pick<DeliveryRowState, 'status' | 'cause' | 'updatedAt'>[]): MessageState {
  const status = deriveMessageStatus(deliveries.map((d) => d.status));
  return { status, cause: deriveMessageCause(deliveries, status), terminal: isTerminal(status) };
}

export interface MessageStateWrite extends MessageState {
  emailId: string;
  at: Date;
}

/**
 * Writes messages' derived states; a message that became terminal gets `completed_at` and
 * loses its body and attachment bytes (docs/api-decisions.md, "Delivery"). A terminal message
 * a later DSN changes (accepted to bounced) keeps its `completed_at` and `content_purged_at`. The caller
 * holds the locks of the deliveries the states were derived from.
 */
export function messageStateStatements(tx: Transaction, states: readonly MessageStateWrite[]) {
  if (states.length === 0) return [];
  const terminal = states.filter((s) => s.terminal).map((s) => s.emailId);
  return [
    tx.sql`
      update emails e
         set status = x.status, cause = x.cause::jsonb, updated_at = x.at,
             completed_at = case when x.terminal then coalesce(e.completed_at, x.at) else e.completed_at end,
             text_body = case when x.terminal then null else e.text_body end,
             html_body = case when x.terminal then null else e.html_body end,
             content_purged_at = case when x.terminal then coalesce(e.content_purged_at, x.at) else e.content_purged_at end
        from unnest(${states.map((s) => s.emailId)}::text[], ${states.map((s) => s.status)}::text[],
                    ${states.map((s) => (s.cause ? JSON.stringify(s.cause) : null))}::text[], ${timestampsParam(states.map((s) => s.at))}::text[]::timestamptz[],
                    ${booleansParam(states.map((s) => s.terminal))}::text[]::boolean[])
             as x(email_id, status, cause, at, terminal)
       where e.id = x.email_id`,
    ...(terminal.length > 0 ? [tx.sql`update attachments set content = null where email_id = any(${terminal}::text[])`] : []),
  ];
}

/** Events of delivery transitions; a BCC delivery's event names no recipient. */
export function deliveryEventsStatement(
  tx: Transaction,
  events: readonly { emailId: string; type: string; at: Date; kind: LeasedDelivery['kind']; recipient: string; cause: DeliveryCause | null }[],
) {
  return tx.sql`
    insert into events (email_id, type, at, recipient, cause)
    select x.email_id, x.type, x.at, x.recipient, x.cause::jsonb
      from unnest(${events.map((e) => e.emailId)}::text[], ${events.map((e) => e.type)}::text[], ${timestampsParam(events.map((e) => e.at))}::text[]::timestamptz[],
                  ${events.map((e) => (e.kind === 'bcc' ? null : e.recipient))}::text[],
                  ${events.map((e) => (e.cause ? JSON.stringify(e.cause) : null))}::text[])
           as x(email_id, type, at, recipient, cause)`;
}

/**
 * When the message is next owed work: the earliest due queued/deferred delivery, or the
 * expiry of a lease still held (a worker that dies holding one is taken over then).
 */
export async function nextObligation(db: Database, emailId: string): Promise<Date | undefined> {
  const rows = await db`select status, next_attempt_at, lease_expires_at from deliveries where email_id = ${emailId}`;
  const due = rows
    .filter((r: Row) => !isTerminal(r.status))
    .map((r: Row): number => (r.status === 'sending' ? r.lease_expires_at : r.next_attempt_at).getTime());
  return due.length > 0 ? new Date(Math.min(...due)) : undefined;
}
