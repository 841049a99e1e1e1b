-- Streams (docs/api-decisions.md, "Streams"): a message is transactional or broadcast, and a
-- suppression holds for one stream or, when its stream is null, for every stream.
ALTER TABLE "emails" ADD CONSTRAINT "emails_type_check" CHECK ("type" IN ('transactional', 'broadcast'));--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "stream" text;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_stream_check" CHECK ("stream" IN ('transactional', 'broadcast'));--> statement-breakpoint
ALTER TABLE "suppressions" DROP CONSTRAINT "suppressions_account_id_email_key_pk";--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_account_email_stream_key" UNIQUE NULLS NOT DISTINCT ("account_id","email_key","stream");
