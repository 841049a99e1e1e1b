import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { EMAIL_TYPES } from '@mailer/domain';
import { instant } from './columns';

/**
 * Per account, stream and hour (docs/api-decisions.md, "Reputation", "Streams"): to/cc deliveries of the stream
 * that ended after an attempt, the accepted ones among them, and the hard bounces and
 * complaints reported in that hour. The transition writer adds to them; the reputation
 * evaluation sums the last 24.
 */
export const accountReputationHours = pgTable(
  'account_reputation_hours',
  {
    accountId: text('account_id').notNull(),
    stream: text('stream', { enum: EMAIL_TYPES }).notNull(),
    hour: instant('hour').notNull(),
    terminal: integer('terminal').notNull().default(0),
    accepted: integer('accepted').notNull().default(0),
    hardBounces: integer('hard_bounces').notNull().default(0),
    complaints: integer('complaints').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.stream, t.hour] })],
);
