import { date, inet, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/** Named sets of local source addresses (docs/api-decisions.md, "Providers and egress pools"). */
export const egressPools = pgTable('egress_pools', {
  name: text('name').primaryKey(),
  createdAt: createdAt(),
});

/** A source address of one pool, the HELO name it greets with, and when its warm-up started (null: warm). */
export const egressAddresses = pgTable('egress_addresses', {
  address: inet('address').primaryKey(),
  poolName: text('pool_name')
    .notNull()
    .references(() => egressPools.name, { onDelete: 'cascade' }),
  heloName: text('helo_name').notNull(),
  warmUpStartedOn: date('warm_up_started_on', { mode: 'string' }),
  createdAt: createdAt(),
});
