-- An operator's hold on a waiting delivery (docs/api-decisions.md, "Queue operations"): set by
-- `queue hold`, cleared by `queue release` or when the delivery ends. A held delivery keeps its
-- status (queued or deferred) and is never claimed; the transition writer alone writes it.
ALTER TABLE "deliveries" ADD COLUMN "held_at" timestamp (3) with time zone;--> statement-breakpoint
-- Holds are rare and few: the listing and the daemons' expiry pass find them here without a
-- scan of the waiting deliveries, and deliveries never held cost nothing in it.
CREATE INDEX "deliveries_held_idx" ON "deliveries" USING btree ("held_at") WHERE "held_at" is not null;
