import { sql, type SQL } from 'drizzle-orm';
import type { AcceptedEmail } from './emails-store';
import { rowsOfKeys } from './idempotency-store';
import { jsonb as json } from './jsonb';

/** The body of row `x.n` (1-based, the message's position in the batch) from one array parameter. */
const bodyOfRow = (bodies: (string | null)[]) => sql`(${sql.param(bodies)}::text[])[x.n]`;

/**
 * The rows of messages that passed the key and sender checks and need no usage figures:
 * the messages themselves (queued), their `queued` events and their attachments (bytes as
 * base64 in the JSON). They are written before the account's usage lock is taken, so the
 * heaviest writes of a batch stay outside the section that the account's batches take in
 * turn; the few the plan then refuses are deleted again under the lock (admissionStatement).
 *
 * The bodies travel as text arrays beside the JSON rows (see bodyOfRow): inside JSON every
 * line break would be escaped, and doubled again in the literal, and PostgreSQL's JSON
 * lexer copies a string's characters one at a time.
 */
export function messageRowsStatements(accountId: string, now: Date, messages: AcceptedEmail[]): SQL[] {
  const statements = [
    sql`
    with new_emails as (
      insert into emails (id, account_id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count,
                          text_body, html_body, message_id_header, status, created_at, updated_at)
      select x.id, ${accountId}, x.sender_id, x.domain_id, x.from_email, x.from_name, x.type, x.subject, x."to", x.cc, x.bcc_count,
             ${bodyOfRow(messages.map((e) => e.text))}, ${bodyOfRow(messages.map((e) => e.html))},
             x.message_id_header, 'queued', ${now}, ${now}
      from jsonb_to_recordset(${json(
        messages.map((e, i) => ({
          n: i + 1,
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
          message_id_header: e.messageIdHeader,
        })),
      )}) as x(n integer, id text, sender_id text, domain_id text, from_email text, from_name text, type text, subject text, "to" jsonb,
               cc jsonb, bcc_count integer, message_id_header text)
      returning id
    )
    insert into events (email_id, type, at) select id, 'queued', ${now} from new_emails`,
  ];
  const attachmentRows = messages.flatMap((e) =>
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

export interface AdmissionWrites {
  accountId: string;
  /** The acceptance instant: due time of the deliveries, senders' last use. */
  now: Date;
  /** The usage instant (see lockUsage): never before the account's previous one. */
  usageAt: Date;
  /** Messages the plan admitted, in order; their rows are already written (messageRowsStatements). */
  admitted: AcceptedEmail[];
  /** Messages written by messageRowsStatements that the plan refused: deleted again. */
  refusedEmailIds: string[];
  /** The running total lockUsage reported; each message's usage row carries the total after it. */
  totalBefore: number;
  /** Idempotency-Keys of refused requests, given back. */
  releasedKeys: string[];
}

/**
 * Deletes of what the plan refused, only when there is some: an empty delete is not free
 * once a generic plan chose to scan a table its statistics still think small.
 */
function givenBack(w: AdmissionWrites): SQL {
  const refusedEmails =
    w.refusedEmailIds.length === 0
      ? sql``
      : sql`, refused as (
      select jsonb_array_elements_text(${json(w.refusedEmailIds)}) as id
    ), refused_emails as (
      delete from emails where ctid = any(array(select (select e.ctid from emails e where e.id = r.id) from refused r))
    ), refused_events as (
      delete from events where email_id = any(array(select id from refused))
    )`;
  const releasedKeys =
    w.releasedKeys.length === 0
      ? sql``
      : sql`, released_keys as (
      delete from idempotency_keys where ctid = any(array(select i.row_id from ${rowsOfKeys(w.accountId, w.releasedKeys)}))
    )`;
  return sql`${refusedEmails}${releasedKeys}`;
}

/**
 * What an intake transaction writes under the account's usage lock, as one statement
 * (data-modifying CTEs over JSON row sets) whatever the batch's size: one queued delivery
 * per unique recipient of the admitted messages, due at once (their count is what the
 * active-delivery limit reads), their usage rows, the senders' `last_used_at`, the
 * refused messages and keys given back, and the account's new running total.
 */
export function admissionStatement(w: AdmissionWrites): SQL {
  let total = w.totalBefore;
  const usage = w.admitted.map((e) => ({ email_id: e.id, recipients: e.recipients.length, cumulative: (total += e.recipients.length) }));
  return sql`
    with new_deliveries as (
      insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, next_attempt_at, created_at, updated_at)
      select x.id, x.email_id, ${w.accountId}, x.recipient, x.recipient_domain, x.kind, 'queued', ${w.now}, ${w.now}, ${w.now}
      from jsonb_to_recordset(${json(
        w.admitted.flatMap((e) => e.recipients.map((r) => ({ id: r.id, email_id: e.id, recipient: r.address, recipient_domain: r.domain, kind: r.kind }))),
      )}) as x(id text, email_id text, recipient text, recipient_domain text, kind text)
    ), new_usage as (
      insert into recipient_usage (email_id, account_id, recipients, accepted_at, cumulative)
      select x.email_id, ${w.accountId}, x.recipients, ${w.usageAt}, x.cumulative
      from jsonb_to_recordset(${json(usage)}) as x(email_id text, recipients integer, cumulative bigint)
    ), used_senders as (
      update senders set last_used_at = ${w.now}
      where id = any(array(select jsonb_array_elements_text(${json([...new Set(w.admitted.map((e) => e.senderId))])})))
        and (last_used_at is null or last_used_at < ${w.now})
    )${givenBack(w)}
    update account_usage set recipients_total = ${total}, last_accepted_at = ${w.usageAt}
    where account_id = ${w.accountId} and ${w.admitted.length > 0}`;
}
