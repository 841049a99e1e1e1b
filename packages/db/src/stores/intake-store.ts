import { counterDeltas, counterDeltasByKey, SUPPRESSED } from '@mailer/domain';
import type { AcceptedEmail } from './emails-store';
import { timestampsParam, type Statement } from '../database';
import { moveSenderCounts } from './counters-store';
import { deliveryEventsStatement, messageState, messageStateStatements } from './delivery-store';
import { webhookEventsOutbox } from './webhook-outbox-store';
import type { Transaction } from '../transaction';

/**
 * The rows of messages that passed the key and sender checks and need no usage figures:
 * the messages themselves (queued) with their `queued` events, and their attachments. They
 * are written before the account's usage lock is taken, so the heaviest writes of a batch
 * stay outside the section that the account's batches take in turn; the few the plan then
 * refuses are deleted again under the lock (admissionStatements). Each column travels as
 * one array parameter, whatever the batch's size.
 */
export function messageRowsStatements(tx: Transaction, accountId: string, now: Date, messages: AcceptedEmail[]): Statement[] {
  const column = <T>(pick: (e: AcceptedEmail) => T) => messages.map(pick);
  const statements: Statement[] = [
    tx.sql`
      with new_emails as (
        insert into emails (id, account_id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count,
                            text_body, html_body, message_id_header, reply_to, headers, tags, scheduled_at, status, created_at, updated_at)
        select x.id, ${accountId}, x.sender_id, x.domain_id, x.from_email, x.from_name, x.type, x.subject, x."to"::jsonb, x.cc::jsonb,
               x.bcc_count, x.text_body, x.html_body, x.message_id_header, x.reply_to::jsonb, x.headers::jsonb, x.tags::jsonb, x.scheduled_at,
               'queued', ${now}, ${now}
          from unnest(${column((e) => e.id)}::text[], ${column((e) => e.senderId)}::text[], ${column((e) => e.domainId)}::text[],
                      ${column((e) => e.fromEmail)}::text[], ${column((e) => e.fromName)}::text[], ${column((e) => e.type)}::text[],
                      ${column((e) => e.subject)}::text[], ${column((e) => JSON.stringify(e.to))}::text[], ${column((e) => JSON.stringify(e.cc))}::text[],
                      ${column((e) => e.bccCount)}::int[], ${column((e) => e.text)}::text[], ${column((e) => e.html)}::text[],
                      ${column((e) => e.messageIdHeader)}::text[], ${column((e) => JSON.stringify(e.replyTo))}::text[],
                      ${column((e) => JSON.stringify(e.headers))}::text[], ${column((e) => JSON.stringify(e.tags))}::text[],
                      ${timestampsParam(column((e) => e.scheduledAt))}::text[]::timestamptz[])
               as x(id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count, text_body, html_body, message_id_header,
                    reply_to, headers, tags, scheduled_at)
        returning id
      )
      insert into events (email_id, type, at) select id, 'queued', ${now} from new_emails`,
  ];
  const attachments = messages.flatMap((e) => e.attachments.map((a, position) => ({ emailId: e.id, position, ...a })));
  if (attachments.length > 0) {
    statements.push(tx.sql`
      insert into attachments (email_id, position, filename, content_type, content_id, size, content)
      select x.email_id, x.position, x.filename, x.content_type, x.content_id, x.size, decode(x.content, 'base64')
        from unnest(${attachments.map((a) => a.emailId)}::text[], ${attachments.map((a) => a.position)}::int[],
                    ${attachments.map((a) => a.filename)}::text[], ${attachments.map((a) => a.contentType)}::text[],
                    ${attachments.map((a) => a.contentId)}::text[], ${attachments.map((a) => a.content.length)}::int[],
                    ${attachments.map((a) => a.content.toString('base64'))}::text[])
             as x(email_id, position, filename, content_type, content_id, size, content)`);
  }
  return statements;
}

export interface AdmissionWrites {
  accountId: string;
  /** The acceptance instant: senders' last use (deliveries are due at their message's dueAt). */
  now: Date;
  /** The usage instant: never before the account's previous one. */
  usageAt: Date;
  /** Messages the plan admitted, in order; their rows are already written (messageRowsStatements). */
  admitted: AcceptedEmail[];
  /** Messages written by messageRowsStatements that the plan refused: deleted again. */
  refusedEmailIds: string[];
  /** The account's running total before this batch; each message's usage row carries the total after it. */
  totalBefore: number;
}

/**
 * What an intake transaction writes under the account's usage lock, and after the sender
 * locks (lock-order): one delivery per unique recipient of the admitted messages, queued
 * and due at their message's dueAt (also their `created_at`: a delivery's age, which bounds
 * its retries and the latency metrics, counts from when it was first owed, so a scheduled
 * message keeps the whole MAX_DELIVERY_AGE; docs/api-decisions.md, "Scheduled send and cancel"), or failed `recipient_suppressed` (with its event) for a suppressed
 * recipient; usage rows for the recipients that will be attempted; the senders'
 * `last_used_at`; the counters the new deliveries move (counterDeltas); the state of a
 * message with no recipient left to attempt; the refused messages deleted again; the
 * account's running total.
 */
export function admissionStatements(tx: Transaction, w: AdmissionWrites): Statement[] {
  const deliveries = w.admitted.flatMap((e) =>
    e.recipients.map((r, position) => ({ ...r, emailId: e.id, senderId: e.senderId, dueAt: e.dueAt, position, status: r.suppressed ? ('failed' as const) : ('queued' as const) })),
  );
  const attempted = w.admitted.map((e) => e.recipients.filter((r) => !r.suppressed).length);
  let total = w.totalBefore;
  const usage = w.admitted.map((e, i) => ({ emailId: e.id, recipients: attempted[i]!, cumulative: (total += attempted[i]!) })).filter((u) => u.recipients > 0);
  const suppressed = deliveries.filter((d) => d.suppressed);
  const unattempted = w.admitted.filter((_, i) => attempted[i] === 0);
  const statements: Statement[] = [];
  if (w.admitted.length > 0) {
    statements.push(
      tx.sql`
        insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, position, status, cause, next_attempt_at, created_at, updated_at)
        select x.id, x.email_id, ${w.accountId}, x.recipient, x.recipient_domain, x.kind, x.position, x.status, x.cause::jsonb, x.due_at, x.due_at, ${w.now}
          from unnest(${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.emailId)}::text[], ${deliveries.map((d) => d.address)}::text[],
                      ${deliveries.map((d) => d.domain)}::text[], ${deliveries.map((d) => d.kind)}::text[], ${deliveries.map((d) => d.position)}::int[],
                      ${deliveries.map((d) => d.status)}::text[], ${deliveries.map((d) => (d.suppressed ? JSON.stringify(SUPPRESSED) : null))}::text[],
                      ${timestampsParam(deliveries.map((d) => d.dueAt))}::text[]::timestamptz[])
               as x(id, email_id, recipient, recipient_domain, kind, position, status, cause, due_at)`,
      tx.sql`
        update senders set last_used_at = ${w.now}
         where id = any(${[...new Set(w.admitted.map((e) => e.senderId))]}::text[]) and (last_used_at is null or last_used_at < ${w.now})`,
      tx.sql`
        update account_usage set recipients_total = ${total}, last_accepted_at = ${w.usageAt},
               active_deliveries = active_deliveries + ${counterDeltas(deliveries.map((d) => ({ from: null, to: d.status }))).active}
         where account_id = ${w.accountId}`,
      ...moveSenderCounts(tx, counterDeltasByKey(deliveries.map((d) => ({ key: d.senderId, from: null, to: d.status })))),
    );
  }
  if (usage.length > 0) {
    statements.push(tx.sql`
      insert into recipient_usage (email_id, account_id, recipients, accepted_at, cumulative)
      select x.email_id, ${w.accountId}, x.recipients, ${w.usageAt}, x.cumulative
        from unnest(${usage.map((u) => u.emailId)}::text[], ${usage.map((u) => u.recipients)}::int[], ${usage.map((u) => u.cumulative)}::bigint[])
             as x(email_id, recipients, cumulative)`);
  }
  if (suppressed.length > 0) {
    statements.push(
      deliveryEventsStatement(
        tx,
        suppressed.map((d) => ({ emailId: d.emailId, type: 'failed', at: w.now, kind: d.kind, recipient: d.address, cause: SUPPRESSED })),
      ),
      webhookEventsOutbox(
        tx,
        suppressed.map((d) => ({
          accountId: w.accountId,
          type: 'email.failed' as const,
          emailId: d.emailId,
          recipient: d.kind === 'bcc' ? null : d.address,
          recipientKind: d.kind,
          status: 'failed' as const,
          cause: SUPPRESSED,
          attemptCount: 0,
          at: w.now,
        })),
      ),
    );
  }
  if (unattempted.length > 0) {
    statements.push(
      ...messageStateStatements(
        tx,
        unattempted.map((e) => ({
          emailId: e.id,
          at: w.now,
          ...messageState(e.recipients.map(() => ({ status: 'failed' as const, cause: SUPPRESSED, updatedAt: w.now }))),
        })),
      ),
    );
  }
  if (w.refusedEmailIds.length > 0) {
    // Only their rows of messageRowsStatements exist: attachments go with the message (cascade).
    statements.push(
      tx.sql`delete from events where email_id = any(${w.refusedEmailIds}::text[])`,
      tx.sql`delete from emails where id = any(${w.refusedEmailIds}::text[])`,
    );
  }
  return statements;
}
