import { nextObligationOf, signsWithEd25519, type DkimAlgorithm, type EmailType } from '@mailer/domain';
import type { Database } from '../database';

/**
 * What the worker needs to route a message and hold its deliveries. Its content and signing
 * key are read only when it is built (loadMessageContents): a daemon holds up to
 * WORKER_ACTIVE_LIMIT deliveries, whose bodies may each be megabytes, and every byte held
 * that long is copied by the collector before it is old (docs/api-decisions.md, "Scheduling").
 * Messages claimed together share their sender's and domain's objects.
 */
/** Opens and clicks of a message, as intake decided them (docs/api-decisions.md, "Opens and clicks"). */
export interface Tracking {
  opens: boolean;
  clicks: boolean;
}

export interface DeliveryContext {
  /**
   * `test`: simulated, never sent (docs/api-decisions.md, "Test mode"). `type` (the stream) and
   * `unsubscribe`: whether each delivery carries the List-Unsubscribe headers (docs/api-decisions.md, "Unsubscribe").
   */
  email: { id: string; accountId: string; fromEmail: string; fromName: string | null; createdAt: Date; test: boolean; type: EmailType; unsubscribe: boolean; track: Tracking };
  /** Its stream's sending is paused (docs/api-decisions.md, "Reputation", "Streams"): its deliveries wait unattempted. */
  sendingPaused: boolean;
  sender: { id: string; email: string; policy: 'require_tls' | 'opportunistic'; active: boolean };
  /** `returnPathVerified`: MAIL FROM is a return-path address of the domain (envelopeSender); `trackingHost`: `<tracking subdomain>.<name>`. */
  domain: { name: string; ready: boolean; returnPathVerified: boolean; trackingHost: string };
  /** Its stream's egress pool, else the account's; null: the `default` pool (docs/api-decisions.md, "Providers and egress pools", "Streams"). */
  egressPool: string | null;
}

/** A key a message is signed with: its selector and its private key as stored (sealed). */
export interface DkimSigningKey {
  algorithm: DkimAlgorithm;
  selector: string;
  sealedPrivateKey: string;
}

export interface MessageContent {
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  messageId: string;
  replyTo: string[];
  /** Display names of to, cc and reply_to addresses, by address. */
  displayNames: Record<string, string>;
  /** Extra header fields, as intake checked them. */
  headers: { name: string; value: string }[];
  hasAttachments: boolean;
  /**
   * The keys the sending domain signs with now, read with the content that they sign (so that a
   * rotation's switch never pairs one key's selector with another's private key): RSA, and
   * Ed25519 once its record verified (signsWithEd25519).
   */
  signingKeys: DkimSigningKey[];
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
    select e.id, e."to", e.cc, e.subject, e.text_body, e.html_body, e.message_id_header, e.reply_to, e.display_names, e.headers,
           exists (select 1 from attachments a where a.email_id = e.id) as has_attachments, d.dkim_selector, d.dkim_private_key_sealed,
           d.dkim_ed25519_selector, d.dkim_ed25519_private_key_sealed, d.dkim_ed25519_status
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
        displayNames: r.display_names,
        headers: r.headers,
        hasAttachments: r.has_attachments,
        signingKeys: [
          { algorithm: 'rsa', selector: r.dkim_selector, sealedPrivateKey: r.dkim_private_key_sealed },
          ...(r.dkim_ed25519_selector !== null && signsWithEd25519(r.dkim_ed25519_status)
            ? [{ algorithm: 'ed25519' as const, selector: r.dkim_ed25519_selector, sealedPrivateKey: r.dkim_ed25519_private_key_sealed }]
            : []),
        ],
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
}

/**
 * When the message is next owed work (nextObligationOf): a retry due, or the expiry of a
 * lease still held (a worker that dies holding one is taken over then).
 */
export async function nextObligation(db: Database, emailId: string): Promise<Date | undefined> {
  const rows = await db`select status, next_attempt_at, lease_expires_at, held_at from deliveries where email_id = ${emailId}`;
  return nextObligationOf(rows.map((r) => ({ status: r.status, nextAttemptAt: r.next_attempt_at, leaseExpiresAt: r.lease_expires_at, heldAt: r.held_at })));
}
