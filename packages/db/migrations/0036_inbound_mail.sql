-- Inbound mail (docs/api-decisions.md, "Inbound mail"): receiving per domain, routes, and the
-- messages received, each stored whole (raw MIME) with what was read from it.
ALTER TABLE "domains" ADD COLUMN "receiving_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "receiving_subdomain" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "receiving_status" text DEFAULT 'not_checked' NOT NULL;--> statement-breakpoint
CREATE TABLE "inbound_routes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"domain_id" text NOT NULL REFERENCES "domains"("id"),
	"pattern" text NOT NULL,
	"local_part" text,
	"host" text NOT NULL,
	"webhook_id" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_routes_active_pattern_key" ON "inbound_routes" ("account_id", "pattern") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "inbound_routes_match_idx" ON "inbound_routes" ("host", "local_part") WHERE deleted_at is null and enabled;--> statement-breakpoint
CREATE INDEX "inbound_routes_account_list_idx" ON "inbound_routes" ("account_id", "created_at" DESC, "id" DESC) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE "inbound_emails" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"route_id" text NOT NULL,
	"mail_from" text NOT NULL,
	"recipients" text[] NOT NULL,
	"remote_address" text NOT NULL,
	"from_address" text,
	"subject" text,
	"message" jsonb NOT NULL,
	"auth" jsonb NOT NULL,
	"raw" bytea NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "inbound_emails_account_list_idx" ON "inbound_emails" ("account_id", "created_at" DESC, "id" DESC);--> statement-breakpoint
CREATE INDEX "inbound_emails_created_idx" ON "inbound_emails" ("created_at");
