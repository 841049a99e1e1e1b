import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, instant } from './columns';

/** Only the SHA-256 of a key is stored; the key itself is shown once by the CLI. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    kind: text('kind', { enum: ['sending', 'management'] }).notNull(),
    keyHash: text('key_hash').notNull(),
    /** A test sending key (svc_test_…): its messages are simulated (docs/api-decisions.md, "Test mode"). */
    test: boolean('test').notNull().default(false),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    revokedAt: instant('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId),
    // An account has exactly one active live and one active test sending key.
    uniqueIndex('api_keys_one_active_sending_key').on(t.accountId, t.test).where(sql`kind = 'sending' and revoked_at is null`),
    check('api_keys_test_is_sending', sql`not ${t.test} or ${t.kind} = 'sending'`),
  ],
);
