import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, instant } from './columns';

/** Account-scoped Idempotency-Key records; live for 24 hours from the first accepted request. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull().references(() => accounts.id),
    key: text('key').notNull(),
    /** SHA-256 of the canonical request (parsed JSON with sorted members). */
    requestHash: text('request_hash').notNull(),
    emailId: text('email_id').notNull(),
    /** The original 202 body, replayed verbatim. */
    response: jsonb('response').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index('idempotency_keys_expiry_idx').on(t.expiresAt)],
);

/** Accepted recipient-emails, the unit the rolling plan windows count. Kept apart from emails so retention cannot undercount a window. */
export const recipientUsage = pgTable(
  'recipient_usage',
  {
    emailId: text('email_id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    recipients: integer('recipients').notNull(),
    acceptedAt: instant('accepted_at').notNull(),
  },
  (t) => [index('recipient_usage_account_idx').on(t.accountId, t.acceptedAt)],
);
