-- Test and live keys have separate idempotency spaces (docs/api-decisions.md, "Test mode"): a key is
-- live once per account and mode, so a key first used by a test request never blocks a live one.
-- The table holds 24 hours of keys, so the rebuild under its lock is short.
ALTER TABLE "idempotency_keys" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_key_account_id_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_key_account_id_test_pk" PRIMARY KEY("key","account_id","test");
