-- Test mode (docs/api-decisions.md, "Test mode"): an account has one active live sending key
-- and one active test sending key; a message sent with the test key is a test message for
-- good, simulated and never delivered. Management keys are never test keys.
ALTER TABLE "api_keys" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_test_is_sending" CHECK (NOT "test" OR "kind" = 'sending');--> statement-breakpoint
DROP INDEX "api_keys_one_active_sending_key";--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_one_active_sending_key" ON "api_keys" USING btree ("account_id","test") WHERE kind = 'sending' and revoked_at is null;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "test" boolean DEFAULT false NOT NULL;
