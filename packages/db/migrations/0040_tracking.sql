-- Opens and clicks (docs/api-decisions.md, "Opens and clicks"): per domain, off by default, on the
-- domain's tracking host `<tracking_subdomain>.<name>` (a CNAME checked like the other records);
-- a message's own, decided at acceptance, with the links a click token's index names (kept when
-- the body is dropped); a delivery remembers its first open and first click.
ALTER TABLE "domains" ADD COLUMN "tracking_opens" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_clicks" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_subdomain" text DEFAULT 'track' NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "tracking_status" text DEFAULT 'not_checked' NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "track_opens" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "track_clicks" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "tracked_links" jsonb;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "opened_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "clicked_at" timestamp (3) with time zone;--> statement-breakpoint
-- An open's or a click's details (url, user_agent, proxy), shown with its event in the message's history.
ALTER TABLE "events" ADD COLUMN "engagement" jsonb;
