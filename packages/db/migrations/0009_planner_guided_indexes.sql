DROP INDEX "deliveries_owed_idx";--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "deliveries_status_due_idx" ON "deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
-- The active-delivery counter is moved by its writers, by the deltas of the transitions they
-- make (counterDeltas in @mailer/domain, applied after the usage lock of the lock order): the
-- trigger counted the same rule a second time, in SQL, and took the usage lock unasked.
DROP TRIGGER "deliveries_count_active_insert" ON "deliveries";
--> statement-breakpoint
DROP TRIGGER "deliveries_count_active_update" ON "deliveries";
--> statement-breakpoint
DROP TRIGGER "deliveries_count_active_delete" ON "deliveries";
--> statement-breakpoint
DROP FUNCTION "count_active_deliveries"();
--> statement-breakpoint
-- Hot tables grow fast from empty; statistics that follow them closely keep the planner's
-- choices (and the generic plans of prepared statements, replanned after each ANALYZE) fitted
-- to their size: analyze after 2% of the rows changed instead of 10%.
ALTER TABLE "emails" SET (autovacuum_analyze_scale_factor = 0.02);
--> statement-breakpoint
ALTER TABLE "deliveries" SET (autovacuum_analyze_scale_factor = 0.02);
--> statement-breakpoint
ALTER TABLE "events" SET (autovacuum_analyze_scale_factor = 0.02);
--> statement-breakpoint
ALTER TABLE "attempts" SET (autovacuum_analyze_scale_factor = 0.02);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" SET (autovacuum_analyze_scale_factor = 0.02);
--> statement-breakpoint
ALTER TABLE "recipient_usage" SET (autovacuum_analyze_scale_factor = 0.02);
