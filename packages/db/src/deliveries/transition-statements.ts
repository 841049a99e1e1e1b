import { newId, type AttemptRecord, type DeliveryCause, type DeliveryRecord, type DeliveryStatus } from '@mailer/domain';
import { booleansParam, timestampsParam, type Statement } from '../database';
import type { Transaction } from '../transaction';

/**
 * The statements of the transition writer (writeTransitions), each for all the rows of one
 * write: every column travels as one array parameter, whatever the write's size.
 */

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export function insertDeliveriesStatement(tx: Transaction, created: readonly { row: DeliveryRecord; accountId: string }[]): Statement {
  const column = <T>(pick: (d: DeliveryRecord) => T) => created.map(({ row }) => pick(row));
  return tx.sql`
    insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, position, status, cause, next_attempt_at, created_at, updated_at)
    select x.id, x.email_id, x.account_id, x.recipient, x.recipient_domain, x.kind, x.position, x.status, x.cause::jsonb, x.next_attempt_at, x.created_at, x.updated_at
      from unnest(${column((d) => d.id)}::text[], ${column((d) => d.emailId)}::text[], ${created.map((c) => c.accountId)}::text[],
                  ${column((d) => d.recipient)}::text[], ${column((d) => d.recipientDomain)}::text[], ${column((d) => d.kind)}::text[],
                  ${column((d) => d.position)}::int[], ${column((d) => d.status)}::text[], ${column((d) => json(d.cause))}::text[],
                  ${timestampsParam(column((d) => d.nextAttemptAt))}::text[]::timestamptz[], ${timestampsParam(column((d) => d.createdAt))}::text[]::timestamptz[],
                  ${timestampsParam(column((d) => d.updatedAt))}::text[]::timestamptz[])
           as x(id, email_id, account_id, recipient, recipient_domain, kind, position, status, cause, next_attempt_at, created_at, updated_at)`;
}

/** Every column a transition or an observation can change, as the write leaves it. */
export function updateDeliveriesStatement(tx: Transaction, rows: readonly DeliveryRecord[]): Statement {
  const column = <T>(pick: (d: DeliveryRecord) => T) => rows.map(pick);
  return tx.sql`
    update deliveries d
       set status = x.status, cause = x.cause::jsonb, attempt_count = x.attempt_count, next_attempt_at = x.next_attempt_at,
           lease_expires_at = x.lease_expires_at, lease_token = x.lease_token, updated_at = x.updated_at,
           delay_reported_at = x.delay_reported_at, complained_at = x.complained_at, unsubscribed_at = x.unsubscribed_at,
           opened_at = x.opened_at, clicked_at = x.clicked_at,
           held_at = x.held_at, created_at = x.created_at
      from unnest(${column((d) => d.id)}::text[], ${column((d) => d.status)}::text[], ${column((d) => json(d.cause))}::text[],
                  ${column((d) => d.attemptCount)}::int[], ${timestampsParam(column((d) => d.nextAttemptAt))}::text[]::timestamptz[],
                  ${timestampsParam(column((d) => d.leaseExpiresAt))}::text[]::timestamptz[], ${column((d) => d.leaseToken)}::text[],
                  ${timestampsParam(column((d) => d.updatedAt))}::text[]::timestamptz[], ${timestampsParam(column((d) => d.delayReportedAt))}::text[]::timestamptz[],
                  ${timestampsParam(column((d) => d.complainedAt))}::text[]::timestamptz[], ${timestampsParam(column((d) => d.unsubscribedAt))}::text[]::timestamptz[],
                  ${timestampsParam(column((d) => d.openedAt))}::text[]::timestamptz[], ${timestampsParam(column((d) => d.clickedAt))}::text[]::timestamptz[],
                  ${timestampsParam(column((d) => d.heldAt))}::text[]::timestamptz[], ${timestampsParam(column((d) => d.createdAt))}::text[]::timestamptz[])
           as x(id, status, cause, attempt_count, next_attempt_at, lease_expires_at, lease_token, updated_at, delay_reported_at, complained_at, unsubscribed_at, opened_at, clicked_at, held_at, created_at)
     where d.id = x.id`;
}

/**
 * One row per attempt, numbered after the message's earlier ones (attempts of one message in
 * one write in the order given); its to/cc recipients named in their message's order, its
 * BCC recipients only counted.
 */
export function attemptsStatement(tx: Transaction, attempts: readonly [AttemptRecord, readonly DeliveryRecord[]][]): Statement {
  const seen = new Map<string, number>();
  const rows = attempts.map(([attempt, deliveries]) => {
    const emailId = deliveries[0]!.emailId;
    const seq = (seen.get(emailId) ?? 0) + 1;
    seen.set(emailId, seq);
    const ordered = [...deliveries].sort((a, b) => a.position - b.position);
    const { transport } = attempt;
    return {
      attempt,
      emailId,
      seq,
      domain: ordered[0]!.recipientDomain,
      recipients: ordered.filter((d) => d.kind !== 'bcc').map((d) => d.recipient),
      bcc: ordered.filter((d) => d.kind === 'bcc').length,
      reply: transport?.reply ? { code: transport.reply.code, enhanced_status: transport.reply.enhancedStatus, text: transport.reply.text } : null,
    };
  });
  const column = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
  return tx.sql`
    insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, cause,
                          tls, mx_host, mx_address, reply, tls_version, tls_cipher, tls_verified, tls_policy, recipient_domain, tls_result)
    select x.id, x.email_id, (select coalesce(max(a.number), 0) from attempts a where a.email_id = x.email_id) + x.seq,
           x.started_at, x.ended_at, x.outcome, x.recipients::jsonb, x.bcc_recipients, x.cause::jsonb,
           x.tls_version is not null, x.mx_host, x.mx_address, x.reply::jsonb, x.tls_version, x.tls_cipher, x.tls_verified, x.tls_policy,
           x.recipient_domain, x.tls_result
      from unnest(${column(() => newId('attempt'))}::text[], ${column((r) => r.emailId)}::text[], ${column((r) => r.seq)}::int[],
                  ${timestampsParam(column((r) => r.attempt.startedAt))}::text[]::timestamptz[], ${timestampsParam(column((r) => r.attempt.endedAt))}::text[]::timestamptz[],
                  ${column((r) => r.attempt.outcome)}::text[], ${column((r) => JSON.stringify(r.recipients))}::text[], ${column((r) => r.bcc)}::int[],
                  ${column((r) => json(r.attempt.cause))}::text[], ${column((r) => r.attempt.transport?.mxHost ?? null)}::text[],
                  ${column((r) => r.attempt.transport?.mxAddress ?? null)}::text[], ${column((r) => json(r.reply))}::text[],
                  ${column((r) => r.attempt.transport?.tls?.version ?? null)}::text[], ${column((r) => r.attempt.transport?.tls?.cipher ?? null)}::text[],
                  ${column((r) => (r.attempt.transport?.tls ? String(r.attempt.transport.tls.verified) : null))}::text[]::boolean[],
                  ${column((r) => r.attempt.transport?.policy ?? null)}::text[], ${column((r) => r.domain)}::text[],
                  ${column((r) => r.attempt.transport?.tlsResult ?? null)}::text[])
           as x(id, email_id, seq, started_at, ended_at, outcome, recipients, bcc_recipients, cause, mx_host, mx_address, reply,
                tls_version, tls_cipher, tls_verified, tls_policy, recipient_domain, tls_result)`;
}

/** An entry of a message's history: a delivery's change or a report about it. */
export interface HistoryEvent {
  emailId: string;
  type: string;
  at: Date;
  /** Null for a BCC delivery. */
  recipient: string | null;
  cause: DeliveryCause | null;
  /** An open's or a click's details, as the message's history shows them (engagementData). */
  engagement?: EngagementData | null;
}

/** An open's or a click's details as stored with its event and its webhook: the API's field names. */
export interface EngagementData {
  url?: string;
  user_agent: string | null;
  proxy: string | null;
}

export function historyEventsStatement(tx: Transaction, events: readonly HistoryEvent[]): Statement {
  return tx.sql`
    insert into events (email_id, type, at, recipient, cause, engagement)
    select x.email_id, x.type, x.at, x.recipient, x.cause::jsonb, x.engagement::jsonb
      from unnest(${events.map((e) => e.emailId)}::text[], ${events.map((e) => e.type)}::text[], ${timestampsParam(events.map((e) => e.at))}::text[]::timestamptz[],
                  ${events.map((e) => e.recipient)}::text[], ${events.map((e) => json(e.cause))}::text[], ${events.map((e) => json(e.engagement ?? null))}::text[])
           as x(email_id, type, at, recipient, cause, engagement)`;
}

export interface MessageStateWrite {
  emailId: string;
  at: Date;
  status: DeliveryStatus;
  cause: DeliveryCause | null;
  terminal: boolean;
}

/**
 * Writes messages' derived states; a message that became terminal gets `completed_at` and
 * loses its body and attachment bytes (docs/api-decisions.md, "Delivery"). A terminal message
 * a later DSN changes (accepted to bounced) keeps its `completed_at` and `content_purged_at`.
 */
export function messageStateStatements(tx: Transaction, states: readonly MessageStateWrite[]): Statement[] {
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
                    ${states.map((s) => json(s.cause))}::text[], ${timestampsParam(states.map((s) => s.at))}::text[]::timestamptz[],
                    ${booleansParam(states.map((s) => s.terminal))}::text[]::boolean[])
             as x(email_id, status, cause, at, terminal)
       where e.id = x.email_id`,
    ...(terminal.length > 0 ? [tx.sql`update attachments set content = null where email_id = any(${terminal}::text[])`] : []),
  ];
}
