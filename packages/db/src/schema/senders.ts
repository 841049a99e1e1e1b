import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, instant, updatedAt } from './columns';
import { domains } from './domains';

export const senders = pgTable(
  'senders',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    domainId: text('domain_id').notNull().references(() => domains.id),
    /** As supplied, with the domain part normalized to the domain's A-label. */
    email: text('email').notNull(),
    /** Lower-cased `email`: senders are unique per domain case-insensitively. */
    emailKey: text('email_key').notNull(),
    displayName: text('display_name'),
    transportSecurityPolicy: text('transport_security_policy', { enum: ['require_tls', 'opportunistic'] }).notNull().default('opportunistic'),
    configuredState: text('configured_state', { enum: ['enabled', 'disabled'] }).notNull().default('enabled'),
    lastUsedAt: instant('last_used_at'),
    /** Delivery outcomes of messages sent from this sender; maintained by the delivery daemon. */
    acceptedCount: integer('accepted_count').notNull().default(0),
    bouncedCount: integer('bounced_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    /** Deliveries currently deferred (not a running total). */
    deferredCount: integer('deferred_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: instant('deleted_at'),
  },
  (t) => [
    uniqueIndex('senders_active_email_key').on(t.domainId, t.emailKey).where(sql`deleted_at is null`),
    index('senders_account_email_idx').on(t.accountId, t.emailKey).where(sql`deleted_at is null`),
    index('senders_domain_list_idx').on(t.domainId, t.createdAt.desc(), t.id.desc()),
  ],
);
