import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, instant, updatedAt } from './columns';

export const VERIFICATION_STATUSES = ['not_checked', 'missing', 'mismatch', 'verified'] as const;

export const domains = pgTable(
  'domains',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    /** A-label, lower case, no trailing dot. */
    name: text('name').notNull(),
    externalId: text('external_id'),
    /** Value the account publishes at `_mailer-verify.<name>` to prove ownership. */
    ownershipToken: text('ownership_token').notNull(),
    dkimSelector: text('dkim_selector').notNull(),
    /** Base64 DER (SubjectPublicKeyInfo), as it appears in `p=`. */
    dkimPublicKey: text('dkim_public_key').notNull(),
    /** PKCS#8 PEM sealed with AES-256-GCM under ENCRYPTION_KEY (see packages/domain/crypto). */
    dkimPrivateKeySealed: text('dkim_private_key_sealed').notNull(),
    ownershipStatus: text('ownership_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    dkimStatus: text('dkim_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    dmarcStatus: text('dmarc_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    /** MX and SPF of `<RETURN_PATH_LABEL>.<name>`; once verified, MAIL FROM is a return-path address there. Not part of readiness. */
    returnPathStatus: text('return_path_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    lastCheckStatus: text('last_check_status', { enum: ['completed', 'temporary_failure'] }),
    lastCheckStartedAt: instant('last_check_started_at'),
    lastCheckCompletedAt: instant('last_check_completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: instant('deleted_at'),
  },
  (t) => [
    uniqueIndex('domains_active_name_key').on(t.accountId, t.name).where(sql`deleted_at is null`),
    uniqueIndex('domains_active_external_id_key').on(t.accountId, t.externalId).where(sql`deleted_at is null and external_id is not null`),
    // The inbound listener's RCPT check: is there an active domain of this name, in any account.
    index('domains_active_name_idx').on(t.name).where(sql`deleted_at is null`),
    index('domains_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
  ],
);
