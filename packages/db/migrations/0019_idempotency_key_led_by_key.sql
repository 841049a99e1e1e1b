-- The key leads its primary key: intake's generic plan of `account_id = $1 and key = any($2)` probes each
-- key, where led by the account it could walk every live key of the account (docs/api-decisions.md,
-- "Data layer", Plans). The table holds 24 hours of keys, so the rebuild under its lock is short.
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_account_id_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_key_account_id_pk" PRIMARY KEY("key","account_id");
