import { EMAIL_TYPES, SUPPRESSION_REASONS } from '@mailer/domain';
import { check, index, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
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
    reason: text('reason', { enum: SUPPRESSION_REASONS }).notNull(),
    /** The stream it holds for; null for every stream (docs/api-decisions.md, "Streams"). */
    stream: text('stream', { enum: EMAIL_TYPES }),
    /** The message whose bounce, complaint or unsubscribe added it; null when added over the API. */
    emailId: text('email_id'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('suppressions_account_email_stream_key').on(t.accountId, t.emailKey, t.stream).nullsNotDistinct(),
    check('suppressions_stream_check', sql`${t.stream} in ('transactional', 'broadcast')`),
    index('suppressions_account_list_idx').on(t.accountId, t.createdAt.desc(), t.emailKey.desc()),
    check('suppressions_reason_check', sql`${t.reason} in (${sql.raw(SUPPRESSION_REASONS.map((r) => `'${r}'`).join(', '))})`),
  ],
);
