import { isIdOf, type AttemptOutcome, type DeliveryCause, type DeliveryStatus, type EmailType, type TlsPolicyApplied, type TlsResult } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import { newestFirst, type PagePosition } from './keyset';

/** The columns a message's public representation is made of; never its body. */
export interface EmailSummary {
  id: string;
  status: DeliveryStatus;
  type: EmailType;
  /** Sent with the List-Unsubscribe headers on transactional mail too (docs/api-decisions.md, "Unsubscribe"). */
  unsubscribe: boolean;
  fromEmail: string;
  fromName: string | null;
  /** Normalized to/cc addresses as shown back. */
  to: string[];
  cc: string[];
  bccCount: number;
  subject: string;
  tags: Record<string, string>;
  replyTo: string[];
  scheduledAt: Date | null;
  cause: DeliveryCause | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** Sent with the account's test key (docs/api-decisions.md, "Test mode"). */
  test: boolean;
  /** Opens and clicks as decided at intake (docs/api-decisions.md, "Opens and clicks"). */
  track: { opens: boolean; clicks: boolean };
  /** The template version it was rendered from (docs/api-decisions.md, "Templates"), or null. */
  template: { id: string; version: number } | null;
}

/**
 * Whose messages a sending key sees: its account's, of its own mode only; a live key never
 * sees test messages and a test key never sees live ones (docs/api-decisions.md, "Test mode").
 */
export interface EmailOwner {
  accountId: string;
  test: boolean;
}

const summaryColumns = (db: Queryable) => db`
  id, status, type, unsubscribe, from_email, from_name, "to", cc, bcc_count, subject, tags, reply_to, scheduled_at, cause, created_at, updated_at, completed_at, test,
  track_opens, track_clicks, template_id, template_version`;

export function toEmailSummary(r: Row): EmailSummary {
  return {
    id: r.id,
    status: r.status,
    type: r.type,
    unsubscribe: r.unsubscribe,
    fromEmail: r.from_email,
    fromName: r.from_name,
    to: r.to,
    cc: r.cc,
    bccCount: r.bcc_count,
    subject: r.subject,
    tags: r.tags,
    replyTo: r.reply_to,
    scheduledAt: r.scheduled_at,
    cause: r.cause,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
    test: r.test,
    track: { opens: r.track_opens, clicks: r.track_clicks },
    template: r.template_id === null ? null : { id: r.template_id, version: r.template_version },
  };
}

/** The filters of GET /v1/emails; each one given narrows the list (docs/api-decisions.md, "Send API additions"). */
export interface EmailListFilters {
  status?: DeliveryStatus;
  tag?: { key: string; value: string };
  /** Exclusive bounds on created_at. */
  createdAfter?: Date;
  createdBefore?: Date;
}

/** An operator's search (docs/api-decisions.md, "Operator console"): any account, or one, and a to/cc recipient. */
export interface EmailSearchFilters extends EmailListFilters {
  accountId?: string;
  /** Test messages only, or live ones only (docs/api-decisions.md, "Test mode"); absent: both. */
  test?: boolean;
  /** A to or cc address by its key (the address in lower case); BCC recipients are never matched. */
  recipientKey?: string;
}

/**
 * One page of the owner's messages (of its mode only) that match the filters, newest first; the
 * caller asks for `limit + 1` rows.
 */
export function listEmails(
  db: Queryable,
  owner: EmailOwner,
  filters: EmailListFilters,
  position: PagePosition | undefined,
  limit: number,
): Promise<EmailSummary[]> {
  return searchEmails(db, { ...filters, accountId: owner.accountId, test: owner.test }, position, limit);
}

/** How many of the owner's messages (of its mode) are retained: Postmark's TotalCount (docs/api-decisions.md, "Resend and Postmark adapters"). */
export async function countEmails(db: Queryable, owner: EmailOwner): Promise<number> {
  const [row] = await db`select count(*)::int as n from emails where account_id = ${owner.accountId} and test = ${owner.test}`;
  return row!.n as number;
}

/**
 * One page of the messages that match the filters, newest first, with their accounts. A tag
 * filter also states `tags <> '{}'` (implied by it) so that the planner may use the partial
 * index of tagged messages (emails_tags_idx). A recipient's messages are first read whole through
 * emails_recipient_keys_idx (the expression it indexes), then filtered, sorted and cut: planned
 * with the page's LIMIT, PostgreSQL, which cannot estimate how rare an address is, would walk
 * every message newest first looking for one (docs/api-decisions.md, "Operator console").
 */
export async function searchEmails(
  db: Queryable,
  filters: EmailSearchFilters,
  position: PagePosition | undefined,
  limit: number,
): Promise<(EmailSummary & { accountId: string })[]> {
  const page = newestFirst(db, position, limit);
  const recipientMessages = filters.recipientKey
    ? db`with emails as materialized (
        select ${summaryColumns(db)}, account_id from emails
        where lower(("to" || cc)::text)::jsonb @> ${JSON.stringify([filters.recipientKey])}::text::jsonb)`
    : db``;
  const rows = await db`
    ${recipientMessages}
    select ${summaryColumns(db)}, account_id from emails
    where true ${page.after}
      ${filters.accountId ? db`and account_id = ${filters.accountId}` : db``}
      ${filters.test !== undefined ? db`and test = ${filters.test}` : db``}
      ${filters.status ? db`and status = ${filters.status}` : db``}
      ${filters.tag ? db`and tags @> ${JSON.stringify({ [filters.tag.key]: filters.tag.value })}::text::jsonb and tags <> '{}'::jsonb` : db``}
      ${filters.createdAfter ? db`and created_at > ${filters.createdAfter}` : db``}
      ${filters.createdBefore ? db`and created_at < ${filters.createdBefore}` : db``}
    ${page.page}`;
  return rows.map((r) => ({ ...toEmailSummary(r), accountId: r.account_id as string }));
}

export interface EmailDelivery {
  recipient: string;
  kind: 'to' | 'cc' | 'bcc';
  status: DeliveryStatus;
  attemptCount: number;
  cause: DeliveryCause | null;
  updatedAt: Date;
}

export const toEmailDelivery = (r: Row): EmailDelivery => ({
  recipient: r.recipient,
  kind: r.kind,
  status: r.status,
  attemptCount: r.attempt_count,
  cause: r.cause,
  updatedAt: r.updated_at,
});

export interface EmailAttempt {
  number: number;
  startedAt: Date;
  endedAt: Date;
  outcome: AttemptOutcome;
  /** to/cc addresses only; BCC recipients are counted, never named. */
  recipients: string[];
  bccRecipients: number;
  tls: boolean;
  cause: DeliveryCause | null;
}

export const toEmailAttempt = (r: Row): EmailAttempt => ({
  number: r.number,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  outcome: r.outcome,
  recipients: r.recipients,
  bccRecipients: r.bcc_recipients,
  tls: r.tls,
  cause: r.cause,
});

export interface EmailEvent {
  type: string;
  at: Date;
  /** A to/cc address, or null for message-level events and BCC deliveries. */
  recipient: string | null;
  cause: DeliveryCause | null;
  /** For `opened` and `clicked` (docs/api-decisions.md, "Opens and clicks"). */
  engagement: { url?: string; user_agent: string | null; proxy: string | null } | null;
}

export const toEmailEvent = (r: Row): EmailEvent => ({ type: r.type, at: r.at, recipient: r.recipient, cause: r.cause, engagement: r.engagement ?? null });

export interface EmailAttachment {
  filename: string;
  contentType: string;
  contentId: string | null;
  size: number;
}

export const toEmailAttachment = (r: Row): EmailAttachment => ({ filename: r.filename, contentType: r.content_type, contentId: r.content_id, size: r.size });

export interface EmailDetail {
  email: EmailSummary;
  deliveries: EmailDelivery[];
  attempts: EmailAttempt[];
  events: EmailEvent[];
  attachments: EmailAttachment[];
}

/** What the transport saw of one attempt: for operators only, never in an API response (docs/api-decisions.md, "Delivery", Attempts). */
export interface AttemptTransportFacts {
  mxHost: string | null;
  mxAddress: string | null;
  reply: { code: number | null; enhanced_status: string | null; text: string } | null;
  tlsVersion: string | null;
  tlsCipher: string | null;
  tlsVerified: boolean | null;
  tlsPolicy: TlsPolicyApplied | null;
  /** `success` or the RFC 8460 failure type (docs/api-decisions.md, "Receivers' TLS policies"); null when no TLS negotiation was reached. */
  tlsResult: TlsResult | null;
}

export interface OperatorEmailDetail extends EmailDetail {
  accountId: string;
  attempts: (EmailAttempt & AttemptTransportFacts)[];
}

/**
 * The owner's message with its deliveries, attempts, events and attachment metadata,
 * or undefined when the id is malformed, unknown, another account's or of the other mode (all
 * answered as email_not_found). Bodies, attachment bytes and transport facts are not read.
 */
export async function findEmailDetail(db: Queryable, owner: EmailOwner, id: string): Promise<EmailDetail | undefined> {
  if (!isIdOf('email', id)) return undefined;
  const [email] = await db`
    select ${summaryColumns(db)} from emails where id = ${id} and account_id = ${owner.accountId} and test = ${owner.test} limit 1`;
  return email && readHistory(db, email, db``, (r) => toEmailAttempt(r));
}

/** Any account's message as an operator sees it: the attempts with what the transport saw. */
export async function findEmailForOperator(db: Queryable, id: string): Promise<OperatorEmailDetail | undefined> {
  if (!isIdOf('email', id)) return undefined;
  const [email] = await db`select ${summaryColumns(db)}, account_id from emails where id = ${id} limit 1`;
  if (!email) return undefined;
  const detail = await readHistory(db, email, db`, mx_host, mx_address, reply, tls_version, tls_cipher, tls_verified, tls_policy, tls_result`, (r) => ({
    ...toEmailAttempt(r),
    mxHost: r.mx_host,
    mxAddress: r.mx_address,
    reply: r.reply,
    tlsVersion: r.tls_version,
    tlsCipher: r.tls_cipher,
    tlsVerified: r.tls_verified,
    tlsPolicy: r.tls_policy,
    tlsResult: r.tls_result,
  }));
  return { ...detail, accountId: email.account_id };
}

async function readHistory<A extends EmailAttempt>(
  db: Queryable,
  email: Row,
  attemptColumns: ReturnType<Queryable>,
  toAttempt: (r: Row) => A,
): Promise<EmailDetail & { attempts: A[] }> {
  const id = email.id as string;
  const [deliveries, attempts, events, attachments] = await Promise.all([
    db`
      select recipient, kind, status, attempt_count, cause, updated_at from deliveries
      where email_id = ${id} order by created_at, recipient`,
    db`
      select number, started_at, ended_at, outcome, recipients, bcc_recipients, tls, cause ${attemptColumns} from attempts
      where email_id = ${id} order by number, started_at`,
    db`select type, at, recipient, cause, engagement from events where email_id = ${id} order by at, id`,
    db`select filename, content_type, content_id, size from attachments where email_id = ${id} order by position`,
  ]);
  return {
    email: toEmailSummary(email),
    deliveries: deliveries.map(toEmailDelivery),
    attempts: attempts.map(toAttempt),
    events: events.map(toEmailEvent),
    attachments: attachments.map(toEmailAttachment),
  };
}
