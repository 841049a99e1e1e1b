import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/**
 * Recipient limits of an account. `plan_free` is seeded by the first migration; the CLI's
 * `plan set` gives an account its own custom row.
 */
export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  perMinute: integer('per_minute').notNull(),
  perHour: integer('per_hour').notNull(),
  perDay: integer('per_day').notNull(),
  per30Days: integer('per_30_days').notNull(),
  maxActive: integer('max_active').notNull(),
  createdAt: createdAt(),
});

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  planId: text('plan_id').notNull().references(() => plans.id),
  createdAt: createdAt(),
});
