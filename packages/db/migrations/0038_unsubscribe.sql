-- One-click unsubscribe (docs/api-decisions.md, "Unsubscribe"): a message sent with
-- `unsubscribe: true` carries the List-Unsubscribe headers, the delivery row remembers the
-- recipient's unsubscribe (it applies once), and the suppression list names it as a reason.
ALTER TABLE "emails" ADD COLUMN "unsubscribe" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "unsubscribed_at" timestamp (3) with time zone;--> statement-breakpoint
-- The reasons are written in @mailer/domain (SUPPRESSION_REASONS); this holds the same set, and a test compares them.
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_reason_check" CHECK ("reason" in ('hard_bounce', 'complaint', 'manual', 'unsubscribed'));
