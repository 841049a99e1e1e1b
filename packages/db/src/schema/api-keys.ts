import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    revokedAt: instant('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId),
    // An account has exactly one active sending key.
    uniqueIndex('api_keys_one_active_sending_key').on(t.accountId).where(sql`kind = 'sending' and revoked_at is null`),
  ],
);
