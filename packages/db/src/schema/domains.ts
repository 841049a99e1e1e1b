import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
    /** The Ed25519 key (RFC 8463): null until generated for a domain created before it existed; set together. */
    dkimEd25519Selector: text('dkim_ed25519_selector'),
    /** Base64 of the bare 32-byte key, as it appears in `p=`. */
    dkimEd25519PublicKey: text('dkim_ed25519_public_key'),
    dkimEd25519PrivateKeySealed: text('dkim_ed25519_private_key_sealed'),
    /** Since when the keys above sign (DKIM_ROTATION_INTERVAL counts from it). */
    dkimActivatedAt: instant('dkim_activated_at').notNull().defaultNow(),
    ownershipStatus: text('ownership_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    dkimStatus: text('dkim_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    /** The Ed25519 record: its signature is added once verified; not part of readiness. */
    dkimEd25519Status: text('dkim_ed25519_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    dmarcStatus: text('dmarc_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    /** MX and SPF of `<RETURN_PATH_LABEL>.<name>`; once verified, MAIL FROM is a return-path address there. Not part of readiness. */
    returnPathStatus: text('return_path_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    /** Inbound mail (docs/api-decisions.md, "Inbound mail"): on by PATCH; its MX at the receiving host is `receiving_status`. Not part of readiness. */
    receivingEnabled: boolean('receiving_enabled').notNull().default(false),
    /** The host mail is received at instead of the domain itself (e.g. `in.example.com`); null: the domain. */
    receivingSubdomain: text('receiving_subdomain'),
    receivingStatus: text('receiving_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    /** Opens and clicks (docs/api-decisions.md, "Opens and clicks"): each on by PATCH, for messages that do not say otherwise. */
    trackingOpens: boolean('tracking_opens').notNull().default(false),
    trackingClicks: boolean('tracking_clicks').notNull().default(false),
    /** The label of the tracking host `<label>.<name>`, whose CNAME names TRACKING_HOST: `tracking_status`. Not part of readiness. */
    trackingSubdomain: text('tracking_subdomain').notNull().default('track'),
    trackingStatus: text('tracking_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
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
    index('domains_dkim_activated_idx').on(t.dkimActivatedAt).where(sql`deleted_at is null`),
  ],
);

/**
 * A domain's DKIM keys other than those that sign now (docs/api-decisions.md, "DKIM keys"): a
 * rotation's pending keys, and the keys they replaced (retiring, then retired), whose private
 * keys are dropped.
 */
export const dkimKeys = pgTable(
  'dkim_keys',
  {
    domainId: text('domain_id').notNull().references(() => domains.id),
    selector: text('selector').notNull(),
    algorithm: text('algorithm', { enum: ['rsa', 'ed25519'] }).notNull(),
    publicKey: text('public_key').notNull(),
    /** Sealed as the domain's keys; set exactly while pending. */
    privateKeySealed: text('private_key_sealed'),
    recordStatus: text('record_status', { enum: VERIFICATION_STATUSES }).notNull().default('not_checked'),
    createdAt: instant('created_at').notNull(),
    activatedAt: instant('activated_at'),
    supersededAt: instant('superseded_at'),
  },
  (t) => [
    primaryKey({ columns: [t.domainId, t.selector] }),
    uniqueIndex('dkim_keys_pending_key').on(t.domainId, t.algorithm).where(sql`superseded_at is null`),
  ],
);
