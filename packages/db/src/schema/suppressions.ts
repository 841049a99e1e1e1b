import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/**
 * An account's suppression list: recipients never attempted again (docs/api-decisions.md,
 * "Suppressions"). `email_key` is the address in lower case, the key recipients are compared by.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    accountId: text('account_id').notNull(),
    emailKey: text('email_key').notNull(),
    /** As normalized at the time (domain as A-label). */
    email: text('email').notNull(),
    reason: text('reason', { enum: ['hard_bounce', 'complaint', 'manual'] }).notNull(),
    /** The message whose bounce or complaint added it; null when added over the API. */
    emailId: text('email_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.emailKey] }),
    index('suppressions_account_list_idx').on(t.accountId, t.createdAt.desc(), t.emailKey.desc()),
  ],
);
