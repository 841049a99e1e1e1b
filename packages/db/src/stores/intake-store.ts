import { SUPPRESSED, type Transition } from '@mailer/domain';
import { timestampsParam, type Statement } from '../database';
import { writeTransitions } from '../deliveries/transition-writer';
import type { Transaction } from '../transaction';
import type { AcceptedEmail } from './emails-store';

export interface AdmittedEmails {
  accountId: string;
  /** The acceptance instant: the messages' creation and the senders' last use. */
  now: Date;
  /** The usage instant: never before the account's previous one. */
  usageAt: Date;
  /** Messages the plan admitted, in order. */
  admitted: readonly AcceptedEmail[];
  /** The account's running total before them; each message's usage row carries the total after it. */
  totalBefore: number;
}

/**
 * What intake writes for messages the plan admitted, in a transaction that holds the
 * account's intake lock (lock-order; it read the figures the admission was judged on): the
 * messages (queued, with their `queued` events) and attachments, usage rows for the
 * recipients that will be attempted, their deliveries through the transition writer
 * (`created`, due at their message's dueAt, or `suppressed` for a recipient on the account's
 * suppression list), which then locks the account's usage row and the senders' rows with
 * those it moves, and last the account's running total and the senders' `last_used_at`: the
 * rows a delivery's record also locks are held from the end of the batch to its commit only
 * (docs/api-decisions.md, "Data layer", Lock order). A delivery's `created_at` is its message's dueAt: its age, which bounds its
 * retries and the latency metrics, counts from when it was first owed, so a scheduled
 * message keeps the whole MAX_DELIVERY_AGE (docs/api-decisions.md, "Scheduled send and cancel").
 */
export function admissionStatements(tx: Transaction, a: AdmittedEmails): Statement[] {
  if (a.admitted.length === 0) return [];
  const transitions = a.admitted.flatMap((e) =>
    e.recipients.map(
      (r, position): Transition => ({
        reason: r.suppressed ? 'suppressed' : 'created',
        delivery: { id: r.id, emailId: e.id, recipient: r.address, recipientDomain: r.domain, kind: r.kind, position, dueAt: e.dueAt },
        to: r.suppressed ? 'failed' : 'queued',
        cause: r.suppressed ? SUPPRESSED : null,
        at: a.now,
      }),
    ),
  );
  // Suppressed recipients are never attempted and test messages never delivered: they count no usage.
  const live = a.admitted.filter((e) => !e.test);
  const senderIds = [...new Set(a.admitted.map((e) => e.senderId))];
  const written = writeTransitions(tx, {
    messages: a.admitted.map((e) => ({ emailId: e.id, accountId: a.accountId, senderId: e.senderId, test: e.test, stream: e.type, deliveries: [] })),
    transitions,
    sharedRows: { accounts: live.length > 0 ? [a.accountId] : [], senders: senderIds },
  });
  let total = a.totalBefore;
  const usage = live
    .map((e) => {
      const recipients = e.recipients.filter((r) => !r.suppressed).length;
      return { emailId: e.id, recipients, cumulative: (total += recipients) };
    })
    .filter((u) => u.recipients > 0);
  return [
    ...messageRowsStatements(tx, a.accountId, a.now, a.admitted),
    ...(usage.length > 0
      ? [
          tx.sql`
            insert into recipient_usage (email_id, account_id, recipients, accepted_at, cumulative)
            select x.email_id, ${a.accountId}, x.recipients, ${a.usageAt}, x.cumulative
              from unnest(${usage.map((u) => u.emailId)}::text[], ${usage.map((u) => u.recipients)}::int[], ${usage.map((u) => u.cumulative)}::bigint[])
                   as x(email_id, recipients, cumulative)`,
        ]
      : []),
    ...written.statements,
    ...(live.length > 0
      ? [tx.sql`update account_usage set recipients_total = ${total}, last_accepted_at = ${a.usageAt} where account_id = ${a.accountId}`]
      : []),
    tx.sql`
      update senders set last_used_at = ${a.now}
       where id = any(${senderIds}::text[]) and (last_used_at is null or last_used_at < ${a.now})`,
  ];
}

/** The messages themselves (queued) with their `queued` events, and their attachments. */
function messageRowsStatements(tx: Transaction, accountId: string, now: Date, messages: readonly AcceptedEmail[]): Statement[] {
  const column = <T>(pick: (e: AcceptedEmail) => T) => messages.map(pick);
  const statements: Statement[] = [
    tx.sql`
      with new_emails as (
        insert into emails (id, account_id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count,
                            text_body, html_body, message_id_header, reply_to, display_names, headers, tags, scheduled_at, template_id, template_version,
                            test, unsubscribe, track_opens, track_clicks, tracked_links, status, created_at, updated_at)
        select x.id, ${accountId}, x.sender_id, x.domain_id, x.from_email, x.from_name, x.type, x.subject, x."to"::jsonb, x.cc::jsonb,
               x.bcc_count, x.text_body, x.html_body, x.message_id_header, x.reply_to::jsonb, x.display_names::jsonb, x.headers::jsonb, x.tags::jsonb, x.scheduled_at,
               x.template_id, x.template_version, x.test, x.unsubscribe, x.track_opens, x.track_clicks, x.tracked_links::jsonb, 'queued', ${now}, ${now}
          from unnest(${column((e) => e.id)}::text[], ${column((e) => e.senderId)}::text[], ${column((e) => e.domainId)}::text[],
                      ${column((e) => e.fromEmail)}::text[], ${column((e) => e.fromName)}::text[], ${column((e) => e.type)}::text[],
                      ${column((e) => e.subject)}::text[], ${column((e) => JSON.stringify(e.to))}::text[], ${column((e) => JSON.stringify(e.cc))}::text[],
                      ${column((e) => e.bccCount)}::int[], ${column((e) => e.text)}::text[], ${column((e) => e.html)}::text[],
                      ${column((e) => e.messageIdHeader)}::text[], ${column((e) => JSON.stringify(e.replyTo))}::text[], ${column((e) => JSON.stringify(e.displayNames))}::text[],
                      ${column((e) => JSON.stringify(e.headers))}::text[], ${column((e) => JSON.stringify(e.tags))}::text[],
                      ${timestampsParam(column((e) => e.scheduledAt))}::text[]::timestamptz[], ${column((e) => e.template?.id ?? null)}::text[],
                      ${column((e) => e.template?.version ?? null)}::int[], ${column((e) => String(e.test))}::text[]::boolean[],
                      ${column((e) => String(e.unsubscribe))}::text[]::boolean[], ${column((e) => String(e.track.opens))}::text[]::boolean[],
                      ${column((e) => String(e.track.clicks))}::text[]::boolean[], ${column((e) => (e.trackedLinks ? JSON.stringify(e.trackedLinks) : null))}::text[])
               as x(id, sender_id, domain_id, from_email, from_name, type, subject, "to", cc, bcc_count, text_body, html_body, message_id_header,
                    reply_to, display_names, headers, tags, scheduled_at, template_id, template_version, test, unsubscribe, track_opens, track_clicks, tracked_links)
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
