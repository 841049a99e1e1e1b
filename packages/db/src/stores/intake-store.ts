import { sql, type SQL } from 'drizzle-orm';
import type { AcceptedEmail } from './emails-store';
import { rowsOfKeys } from './idempotency-store';
import { jsonb as json } from './jsonb';

export interface AcceptanceWrites {
  accountId: string;
  /** The acceptance instant: created_at of the messages, due time of their deliveries, senders' last use. */
  now: Date;
  /** The usage instant (see lockUsage): never before the account's previous one. */
  usageAt: Date;
  accepted: AcceptedEmail[];
  /** The running total lockUsage reported; each message's usage row carries the total after it. */
  totalBefore: number;
  /** Idempotency-Keys of refused requests, given back. */
  releasedKeys: string[];
}

/**
 * Everything an intake transaction writes but attachments, as one statement
 * (data-modifying CTEs over JSON row sets) so that the account's usage lock is held for a
 * single round trip and a batch costs the same few statements whatever its size: the
 * messages (queued) with one queued delivery per unique recipient due at once, their
 * `queued` events and usage rows, the senders' `last_used_at`, the keys given back and the
 * account's new running total. Attachments (bytes, as base64 in the JSON) follow in a
 * statement of their own when there are any.
 */
export function acceptanceStatements(w: AcceptanceWrites): SQL[] {
  let total = w.totalBefore;
  const usage = w.accepted.map((e) => ({ email_id: e.id, recipients: e.recipients.length, cumulative: (total += e.recipients.length) }));
  const statements = [
    sql`
    with new_emails as (
      insert into emails (id, account_id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count,
                          text_body, html_body, message_id_header, status, created_at, updated_at)
      select x.id, ${w.accountId}, x.sender_id, x.domain_id, x.from_email, x.from_name, x.type, x.subject, x."to", x.cc, x.bcc_count,
             x.text_body, x.html_body, x.message_id_header, 'queued', ${w.now}, ${w.now}
      from jsonb_to_recordset(${json(
        w.accepted.map((e) => ({
          id: e.id,
          sender_id: e.senderId,
          domain_id: e.domainId,
          from_email: e.fromEmail,
          from_name: e.fromName,
          type: e.type,
          subject: e.subject,
          to: e.to,
          cc: e.cc,
          bcc_count: e.bccCount,
          text_body: e.text,
          html_body: e.html,
          message_id_header: e.messageIdHeader,
        })),
      )}) as x(id text, sender_id text, domain_id text, from_email text, from_name text, type text, subject text, "to" jsonb,
               cc jsonb, bcc_count integer, text_body text, html_body text, message_id_header text)
    ), new_deliveries as (
      insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, next_attempt_at, created_at, updated_at)
      select x.id, x.email_id, ${w.accountId}, x.recipient, x.recipient_domain, x.kind, 'queued', ${w.now}, ${w.now}, ${w.now}
      from jsonb_to_recordset(${json(
        w.accepted.flatMap((e) => e.recipients.map((r) => ({ id: r.id, email_id: e.id, recipient: r.address, recipient_domain: r.domain, kind: r.kind }))),
      )}) as x(id text, email_id text, recipient text, recipient_domain text, kind text)
    ), new_events as (
      insert into events (email_id, type, at)
      select x.email_id, 'queued', ${w.now} from jsonb_to_recordset(${json(usage)}) as x(email_id text)
    ), new_usage as (
      insert into recipient_usage (email_id, account_id, recipients, accepted_at, cumulative)
      select x.email_id, ${w.accountId}, x.recipients, ${w.usageAt}, x.cumulative
      from jsonb_to_recordset(${json(usage)}) as x(email_id text, recipients integer, cumulative bigint)
    ), used_senders as (
      update senders set last_used_at = ${w.now}
      where id = any(array(select jsonb_array_elements_text(${json([...new Set(w.accepted.map((e) => e.senderId))])})))
        and (last_used_at is null or last_used_at < ${w.now})
    ), released_keys as (
      delete from idempotency_keys where ctid = any(array(select i.row_id from ${rowsOfKeys(w.accountId, w.releasedKeys)}))
    )
    update account_usage set recipients_total = ${total}, last_accepted_at = ${w.usageAt}
    where account_id = ${w.accountId} and ${w.accepted.length > 0}`,
  ];
  const attachmentRows = w.accepted.flatMap((e) =>
    e.attachments.map((a, position) => ({
      email_id: e.id,
      position,
      filename: a.filename,
      content_type: a.contentType,
      content_id: a.contentId,
      size: a.content.length,
      content: a.content.toString('base64'),
    })),
  );
  if (attachmentRows.length > 0) {
    statements.push(sql`
      insert into attachments (email_id, position, filename, content_type, content_id, size, content)
      select x.email_id, x.position, x.filename, x.content_type, x.content_id, x.size, decode(x.content, 'base64')
      from jsonb_to_recordset(${json(attachmentRows)})
        as x(email_id text, position integer, filename text, content_type text, content_id text, size integer, content text)`);
  }
  return statements;
}
