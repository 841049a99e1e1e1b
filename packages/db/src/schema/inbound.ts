import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { domains } from './domains';
import { createdAt, instant, updatedAt } from './columns';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * Where received mail goes (docs/api-decisions.md, "Inbound mail"): an exact address
 * (`local_part` set) or every address (`*@host`) of the receiving host of one of the account's domains.
 */
export const inboundRoutes = pgTable(
  'inbound_routes',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    domainId: text('domain_id').notNull().references(() => domains.id),
    /** As given, normalized: `support@example.com` or `*@example.com`. */
    pattern: text('pattern').notNull(),
    /** Lower case; null for `*`. */
    localPart: text('local_part'),
    host: text('host').notNull(),
    /** The endpoint its `email.received` events go to; null: every endpoint subscribed to the type. */
    webhookId: text('webhook_id'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: instant('deleted_at'),
  },
  (t) => [
    uniqueIndex('inbound_routes_active_pattern_key').on(t.accountId, t.pattern).where(sql`deleted_at is null`),
    // The listener's RCPT check.
    index('inbound_routes_match_idx').on(t.host, t.localPart).where(sql`deleted_at is null and enabled`),
    index('inbound_routes_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()).where(sql`deleted_at is null`),
  ],
);

/** A message received for a route: the bytes as they arrived, and what was read from them once, before the 250. */
export const inboundEmails = pgTable(
  'inbound_emails',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    routeId: text('route_id').notNull(),
    mailFrom: text('mail_from').notNull(),
    /** The envelope recipients of this account's routes (lower case). */
    recipients: text('recipients').array().notNull(),
    remoteAddress: text('remote_address').notNull(),
    /** The From header's address, lower case, for the `from` filter. */
    fromAddress: text('from_address'),
    subject: text('subject'),
    /** The parsed message: addresses, subject, text, html, headers, attachments' metadata (with their ids and part index). */
    message: jsonb('message').notNull(),
    /** mailauth's verdicts: `{spf, dkim, dmarc, arc}`. */
    auth: jsonb('auth').notNull(),
    raw: bytea('raw').notNull(),
    size: integer('size').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('inbound_emails_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()), index('inbound_emails_created_idx').on(t.createdAt)],
);
