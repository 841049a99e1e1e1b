import { EMAIL_TYPES, SENDING_STATUSES } from '@mailer/domain';
import { integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, instant } from './columns';

/**
 * Recipient limits of an account, and how many active domains, webhook endpoints and templates it may have. `plan_free` is
 * seeded by the first migration; the CLI's `plan set` gives an account its own custom row.
 */
export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  perMinute: integer('per_minute').notNull(),
  perHour: integer('per_hour').notNull(),
  perDay: integer('per_day').notNull(),
  per30Days: integer('per_30_days').notNull(),
  maxActive: integer('max_active').notNull(),
  /** Active (not deleted) domains at most; each holds a 2048-bit DKIM key generated at creation. */
  maxDomains: integer('max_domains').notNull().default(100),
  /** Webhook endpoints (not deleted, enabled or not) at most: each may hold requests of the webhook sender in flight. */
  maxWebhookEndpoints: integer('max_webhook_endpoints').notNull().default(10),
  /** Templates (not deleted) at most (docs/api-decisions.md, "Templates"). */
  maxTemplates: integer('max_templates').notNull().default(100),
  /** Reputation thresholds (docs/api-decisions.md, "Reputation"): rates are fractions; below the volume nothing is judged. */
  reputationMinVolume: integer('reputation_min_volume').notNull().default(200),
  reviewBounceRate: numeric('review_bounce_rate', { precision: 7, scale: 6 }).notNull().default('0.05'),
  reviewComplaintRate: numeric('review_complaint_rate', { precision: 7, scale: 6 }).notNull().default('0.001'),
  pauseBounceRate: numeric('pause_bounce_rate', { precision: 7, scale: 6 }).notNull().default('0.10'),
  pauseComplaintRate: numeric('pause_complaint_rate', { precision: 7, scale: 6 }).notNull().default('0.005'),
  createdAt: createdAt(),
});

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  planId: text('plan_id').notNull().references(() => plans.id),
  /** Its egress pool (egress_pools.name, migration 0030); null: the `default` pool, or the machine's own address. */
  egressPool: text('egress_pool'),
  createdAt: createdAt(),
  /** Set while an operator has disabled it: its keys answer 401 (0027_account_disabled.sql). */
  disabledAt: instant('disabled_at'),
});

/**
 * Each stream of an account (docs/api-decisions.md, "Streams"), made with the account: its
 * sending status (enabled, under_review or paused, with why and since when) and its egress pool
 * (null: the account's).
 */
export const accountStreams = pgTable(
  'account_streams',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    stream: text('stream', { enum: EMAIL_TYPES }).notNull(),
    sendingStatus: text('sending_status', { enum: SENDING_STATUSES }).notNull().default('enabled'),
    sendingReason: text('sending_reason'),
    sendingSince: instant('sending_since').notNull().defaultNow(),
    egressPool: text('egress_pool'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.stream] })],
);
