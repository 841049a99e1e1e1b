import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, instant } from './columns';

/** Idempotency-Key records scoped to an account and mode; live for 24 hours from the first accepted request. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    // No foreign key: see 0005_unchecked_parent_references.sql (parents are never deleted).
    accountId: text('account_id').notNull(),
    key: text('key').notNull(),
    /** Whether the key was used with the test key: each mode has its own key space (migration 0032). */
    test: boolean('test').notNull().default(false),
    /** SHA-256 of the canonical request (parsed JSON with sorted members). */
    requestHash: text('request_hash').notNull(),
    emailId: text('email_id').notNull(),
    /** The original 202 body, replayed verbatim. */
    response: jsonb('response').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: instant('expires_at').notNull(),
  },
  // Led by the key: a generic plan of `account_id = $1 and key = any($2)` probes each key,
  // where led by the account it may walk every key of the account (migration 0019).
  (t) => [primaryKey({ columns: [t.key, t.accountId, t.test] }), index('idempotency_keys_expiry_idx').on(t.expiresAt)],
);

/**
 * Accepted recipient-emails, the unit the rolling plan windows count. Kept apart from emails so retention cannot undercount a window.
 * `cumulative` is the account's running total including this row, so the usage inside any
 * window is `total - (cumulative - recipients)` of the window's first row: one index probe
 * per window however busy the account is. Rows of one account are written in
 * `accepted_at` order under the account's intake lock (lock-order), so both columns grow together.
 */
export const recipientUsage = pgTable(
  'recipient_usage',
  {
    emailId: text('email_id').notNull(),
    // No foreign key: see 0005_unchecked_parent_references.sql (parents are never deleted).
    accountId: text('account_id').notNull(),
    recipients: integer('recipients').notNull(),
    acceptedAt: instant('accepted_at').notNull(),
    /** Strictly increasing per account (every message has a recipient), hence the key. */
    cumulative: bigint('cumulative', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.cumulative] }), index('recipient_usage_account_idx').on(t.accountId, t.acceptedAt, t.cumulative)],
);

/**
 * One row per account that has sent: the row intake locks to check and record usage
 * atomically across API processes, the running total behind recipient_usage.cumulative,
 * and the number of recipient deliveries in queued, sending or deferred, which triggers
 * on `deliveries` keep current whoever changes a delivery's status.
 */
export const accountUsage = pgTable('account_usage', {
  accountId: text('account_id').primaryKey().references(() => accounts.id),
  recipientsTotal: bigint('recipients_total', { mode: 'number' }).notNull().default(0),
  activeDeliveries: integer('active_deliveries').notNull().default(0),
  lastAcceptedAt: instant('last_accepted_at'),
});
