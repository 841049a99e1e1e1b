import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/**
 * Recipient limits of an account, and how many active domains and webhook endpoints it may have. `plan_free` is
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
  createdAt: createdAt(),
});

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  planId: text('plan_id').notNull().references(() => plans.id),
  /** Its egress pool (egress_pools.name, migration 0034); null: the `default` pool, or the machine's own address. */
  egressPool: text('egress_pool'),
  createdAt: createdAt(),
});
