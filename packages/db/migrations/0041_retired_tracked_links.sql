-- A tracked link outlives its message (docs/api-decisions.md, "Opens and clicks"): when retention
-- deletes a message whose clicks were tracked, each to/cc delivery's links are kept here, so its
-- click tokens still redirect (recording nothing) until the last of them expires.
CREATE TABLE "retired_tracked_links" (
	"delivery_id" text PRIMARY KEY NOT NULL,
	"links" jsonb NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);--> statement-breakpoint
CREATE INDEX "retired_tracked_links_expires_idx" ON "retired_tracked_links" USING btree ("expires_at");
