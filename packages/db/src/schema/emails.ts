import { sql } from 'drizzle-orm';
import { bigint, boolean, check, customType, date, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ACTIVE_STATUSES, ATTEMPT_OUTCOMES, DELIVERY_STATUSES, TLS_RESULTS, type DeliveryCause } from '@mailer/domain';
import { createdAt, instant, updatedAt } from './columns';

/** `column in ('a', 'b', …)` over one of @mailer/domain's sets, for a check constraint. */
const oneOf = (column: unknown, values: readonly string[]) => sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`;

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const emails = pgTable(
  'emails',
  {
    id: text('id').primaryKey(),
    // No foreign keys on these three: see 0005_unchecked_parent_references.sql (parents are never deleted).
    accountId: text('account_id').notNull(),
    senderId: text('sender_id').notNull(),
    domainId: text('domain_id').notNull(),
    fromEmail: text('from_email').notNull(),
    /** Display name for the From header: the request's, else the sender's at acceptance. */
    fromName: text('from_name'),
    type: text('type').notNull().default('transactional'),
    subject: text('subject').notNull(),
    /** Normalized to/cc addresses as shown back; BCC addresses live only on their deliveries. */
    to: jsonb('to').$type<string[]>().notNull(),
    cc: jsonb('cc').$type<string[]>().notNull(),
    bccCount: integer('bcc_count').notNull(),
    /** Body parts; set to null once every delivery is terminal. */
    // Compressed with lz4: see 0008_emails_body_lz4.sql (drizzle has no column option for it).
    textBody: text('text_body'),
    htmlBody: text('html_body'),
    /** RFC 5322 Message-ID, fixed at acceptance so every attempt sends the same one. */
    messageIdHeader: text('message_id_header').notNull(),
    /** Normalized Reply-To addresses; empty: no header. */
    replyTo: jsonb('reply_to').$type<string[]>().notNull().default([]),
    /** The display names the request gave to, cc and reply_to addresses, by address as stored there; the headers carry them. */
    displayNames: jsonb('display_names').$type<Record<string, string>>().notNull().default({}),
    /** Extra header fields as they are written, in request order (checkExtraHeaders). */
    headers: jsonb('headers').$type<{ name: string; value: string }[]>().notNull().default([]),
    tags: jsonb('tags').$type<Record<string, string>>().notNull().default({}),
    /** As the request gave it; its deliveries were created due then (or at acceptance, if past). */
    scheduledAt: instant('scheduled_at'),
    /** The template and version the message was rendered from at intake (docs/api-decisions.md, "Templates"), or null. */
    templateId: text('template_id'),
    templateVersion: integer('template_version'),
    /** Sent with the account's test key: simulated, never delivered (docs/api-decisions.md, "Test mode"). */
    test: boolean('test').notNull().default(false),
    /** Sent with `unsubscribe: true`: each delivery carries the List-Unsubscribe headers (docs/api-decisions.md, "Unsubscribe"). */
    unsubscribe: boolean('unsubscribe').notNull().default(false),
    /** Opens and clicks (docs/api-decisions.md, "Opens and clicks"): the request's `track`, else the domain's at acceptance. */
    trackOpens: boolean('track_opens').notNull().default(false),
    trackClicks: boolean('track_clicks').notNull().default(false),
    /** With clicks: the HTML part's links (trackedLinks), which click tokens name by index; kept when the body is dropped. */
    trackedLinks: jsonb('tracked_links').$type<string[]>(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('queued'),
    cause: jsonb('cause').$type<DeliveryCause>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: instant('completed_at'),
    contentPurgedAt: instant('content_purged_at'),
  },
  (t) => [
    index('emails_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
    index('emails_created_idx').on(t.createdAt),
    // The list's tag filter (`tags @>`): a rare tag is found without walking the account's history. Untagged
    // messages, most of them, stay out of it and cost intake nothing (listEmails states the predicate).
    index('emails_tags_idx')
      .using('gin', t.tags.op('jsonb_path_ops'))
      .where(sql`${t.tags} <> '{}'::jsonb`),
    // The operator console's search by to/cc recipient, by address key; BCC addresses are not in these columns.
    index('emails_recipient_keys_idx').using('gin', sql`(lower((${t.to} || ${t.cc})::text)::jsonb) jsonb_path_ops`),
    check('emails_status_check', oneOf(t.status, DELIVERY_STATUSES)),
  ],
);

export const attachments = pgTable(
  'attachments',
  {
    emailId: text('email_id').notNull().references(() => emails.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id'),
    size: integer('size').notNull(),
    /** Decoded bytes; set to null once every delivery is terminal. */
    content: bytea('content'),
  },
  (t) => [primaryKey({ columns: [t.emailId, t.position] })],
);

/** One row per unique normalized recipient: the unit of delivery status and of usage. */
export const deliveries = pgTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    // No foreign key: see 0007_unchecked_email_references.sql (retention deletes the children itself).
    emailId: text('email_id').notNull(),
    // No foreign key: see 0005_unchecked_parent_references.sql (parents are never deleted).
    accountId: text('account_id').notNull(),
    recipient: text('recipient').notNull(),
    recipientDomain: text('recipient_domain').notNull(),
    kind: text('kind', { enum: ['to', 'cc', 'bcc'] }).notNull(),
    /** The recipient's place in the message (to, then cc, then bcc, each in request order): RCPT TO follows it. */
    position: integer('position').notNull().default(0),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('queued'),
    attemptCount: integer('attempt_count').notNull().default(0),
    cause: jsonb('cause').$type<DeliveryCause>(),
    /** When the delivery is next owed an attempt; the reconciler re-enqueues what is due. */
    nextAttemptAt: instant('next_attempt_at').notNull().defaultNow(),
    /** While `sending`: until when the worker that leased it owns it (pushed back while it works). */
    leaseExpiresAt: instant('lease_expires_at'),
    /** While `sending`: the lease's identity, unchanged when it is renewed (a claim draws a new one). */
    leaseToken: text('lease_token'),
    /** When a delivery status notification first reported a delay after acceptance (reports apply once). */
    delayReportedAt: instant('delay_reported_at'),
    /** When the recipient first complained (reports apply once). */
    complainedAt: instant('complained_at'),
    /** When the recipient first unsubscribed through the delivery's List-Unsubscribe links (they apply once). */
    unsubscribedAt: instant('unsubscribed_at'),
    /** When the recipient's mail client first fetched the open pixel, and first followed a tracked link. */
    openedAt: instant('opened_at'),
    clickedAt: instant('clicked_at'),
    /** Set while an operator holds it: never claimed until released (0026_queue_holds.sql). */
    heldAt: instant('held_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('deliveries_email_idx').on(t.emailId),
    // The reconciler's scan for owed deliveries, by status then due time: the statuses are a
    // parameter (the sets live in @mailer/domain), which a partial index's predicate could not match.
    index('deliveries_status_due_idx').on(t.status, t.nextAttemptAt),
    // The oldest owed delivery, read at every /metrics scrape. Only owed rows are in it, so it
    // stays as small as the backlog; its predicate names the owed statuses (queued, sending,
    // deferred) literally, and so does the one statement that uses it (owedDeliveriesSummary).
    index('deliveries_owed_created_idx').on(t.createdAt).where(oneOf(sql`status`, ACTIVE_STATUSES)),
    index('deliveries_held_idx').on(t.heldAt).where(sql`held_at is not null`),
    // Active deliveries per account are counted in account_usage (counterDeltas), not by an index scan.
    check('deliveries_status_check', oneOf(t.status, DELIVERY_STATUSES)),
  ],
);

/** One SMTP transaction (or the local decision that replaced one) for some of a message's recipients. */
export const attempts = pgTable(
  'attempts',
  {
    id: text('id').primaryKey(),
    // No foreign key: see 0007_unchecked_email_references.sql (retention deletes the children itself).
    emailId: text('email_id').notNull(),
    number: integer('number').notNull(),
    startedAt: instant('started_at').notNull(),
    endedAt: instant('ended_at').notNull(),
    outcome: text('outcome', { enum: ATTEMPT_OUTCOMES }).notNull(),
    /** to/cc addresses only; BCC recipients are counted, never named. */
    recipients: jsonb('recipients').$type<string[]>().notNull(),
    bccRecipients: integer('bcc_recipients').notNull().default(0),
    tls: boolean('tls').notNull().default(false),
    cause: jsonb('cause').$type<DeliveryCause>(),
    // For operators only, never returned by the API (docs/api-decisions.md, "Delivery", Attempts).
    mxHost: text('mx_host'),
    mxAddress: text('mx_address'),
    /** The reply that decided the attempt: `{code, enhanced_status, text}`, the text at most 512 characters. */
    reply: jsonb('reply').$type<{ code: number | null; enhanced_status: string | null; text: string }>(),
    tlsVersion: text('tls_version'),
    tlsCipher: text('tls_cipher'),
    tlsVerified: boolean('tls_verified'),
    tlsPolicy: text('tls_policy'),
    /** The recipient domain of the attempt's deliveries: the policy domain of its TLS report. */
    recipientDomain: text('recipient_domain'),
    /** `success` or an RFC 8460 result type; null when no TLS negotiation was reached. */
    tlsResult: text('tls_result', { enum: TLS_RESULTS }),
  },
  (t) => [
    index('attempts_email_idx').on(t.emailId, t.number),
    check('attempts_outcome_check', oneOf(t.outcome, ATTEMPT_OUTCOMES)),
    check('attempts_tls_result_check', oneOf(t.tlsResult, TLS_RESULTS)),
    index('attempts_tls_sessions_idx').on(t.startedAt).where(sql`tls_result is not null`),
  ],
);

/** One TLS report (RFC 8460) per recipient domain and UTC day, claimed by the daemon that sends it. */
export const tlsReports = pgTable(
  'tls_reports',
  {
    policyDomain: text('policy_domain').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    status: text('status', { enum: ['sending', 'sent', 'failed', 'no_record'] }).notNull(),
    claimedAt: instant('claimed_at').notNull(),
    detail: text('detail'),
  },
  (t) => [primaryKey({ name: 'tls_reports_pk', columns: [t.policyDomain, t.day] })],
);

export const events = pgTable(
  'events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    // No foreign key: see 0007_unchecked_email_references.sql (retention deletes the children itself).
    emailId: text('email_id').notNull(),
    type: text('type').notNull(),
    at: instant('at').notNull().defaultNow(),
    /** to/cc address, or null for message-level events and BCC deliveries. */
    recipient: text('recipient'),
    cause: jsonb('cause').$type<DeliveryCause>(),
    /** For `opened` and `clicked`: the url (a click), user_agent and proxy (docs/api-decisions.md, "Opens and clicks"). */
    engagement: jsonb('engagement'),
  },
  (t) => [index('events_email_idx').on(t.emailId, t.at, t.id)],
);
