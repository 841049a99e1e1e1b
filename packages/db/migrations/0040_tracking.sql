-- Opens and clicks (docs/api-decisions.md, "Opens and clicks"): per domain, off by default, on the
-- domain's tracking host `<tracking_subdomain>.<name>` (a CNAME checked like the other records);
-- a message may say otherwise (null: the domain's setting); a delivery remembers its first open
-- and first click.
ALTER TABLE "domains" ADD COLUMN "tracking_opens" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_clicks" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_subdomain" text DEFAULT 'track' NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_status" text DEFAULT 'not_checked' NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "track_opens" boolean;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "track_clicks" boolean;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "opened_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "clicked_at" timestamp (3) with time zone;
