-- Reports apply once per delivery and kind (docs/api-decisions.md, "Return path"): the delivery
-- row remembers the delay and the complaint it was told of.
ALTER TABLE "deliveries" ADD COLUMN "delay_reported_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "complained_at" timestamp (3) with time zone;--> statement-breakpoint
-- The operator-only facts of each attempt (docs/api-decisions.md, "Delivery", Attempts).
ALTER TABLE "attempts" ADD COLUMN "mx_address" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "reply" jsonb;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "tls_version" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "tls_cipher" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "tls_verified" boolean;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "tls_policy" text;--> statement-breakpoint
-- The status sets are written in @mailer/domain (DELIVERY_STATUSES); these hold the same sets,
-- and a test compares them.
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_status_check" CHECK ("status" in ('queued', 'sending', 'deferred', 'accepted', 'bounced', 'failed'));--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_status_check" CHECK ("status" in ('queued', 'sending', 'deferred', 'accepted', 'bounced', 'failed'));--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_outcome_check" CHECK ("outcome" in ('accepted', 'deferred', 'bounced', 'failed'));
