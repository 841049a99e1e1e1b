import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant } from './columns';

/**
 * Per account and hour (docs/api-decisions.md, "Reputation"): to/cc deliveries of the account
 * that ended after an attempt, the accepted ones among them, and the hard bounces and
 * complaints reported in that hour. The transition writer adds to them; the reputation
 * evaluation sums the last 24.
 */
export const accountReputationHours = pgTable(
  'account_reputation_hours',
  {
    accountId: text('account_id').notNull(),
    hour: instant('hour').notNull(),
    terminal: integer('terminal').notNull().default(0),
    accepted: integer('accepted').notNull().default(0),
    hardBounces: integer('hard_bounces').notNull().default(0),
    complaints: integer('complaints').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.hour] })],
);
