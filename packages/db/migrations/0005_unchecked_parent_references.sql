-- The hot tables' references to accounts, senders and domains go unchecked. Those parents
-- are never deleted (domains and senders are soft-deleted, accounts not at all), and every
-- value written comes from the parent row the same transaction read (the authenticated
-- account, the sender identity looked up at intake). Each check cost, per inserted row, a
-- lookup plus a FOR KEY SHARE lock on the parent, so every concurrent intake and delivery
-- transaction share-locked the same account row: about a fifth of PostgreSQL's work per
-- accepted message. References to emails: see 0007_unchecked_email_references.sql.
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_sender_id_senders_id_fk";
--> statement-breakpoint
ALTER TABLE "emails" DROP CONSTRAINT "emails_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "recipient_usage" DROP CONSTRAINT "recipient_usage_account_id_accounts_id_fk";
