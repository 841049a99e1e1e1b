-- Egress pools (docs/api-decisions.md, "Providers and egress pools"): named sets of local source
-- addresses. An address belongs to one pool at most (its primary key), so that a connection opened
-- from it never serves another pool's mail.
CREATE TABLE "egress_pools" (
	"name" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "egress_pools_name_check" CHECK ("name" ~ '^[a-z0-9][a-z0-9-]{0,62}$')
);--> statement-breakpoint
-- Each address greets with its own HELO name, which its PTR must name (checked by the CLI). A
-- warm-up start date caps what it sends per provider and UTC day (WARMUP_SCHEDULE); null: warm.
CREATE TABLE "egress_addresses" (
	"address" inet PRIMARY KEY NOT NULL,
	"pool_name" text NOT NULL REFERENCES "egress_pools"("name") ON DELETE CASCADE,
	"helo_name" text NOT NULL,
	"warm_up_started_on" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "egress_addresses_single_host_check" CHECK (masklen("address") = CASE WHEN family("address") = 4 THEN 32 ELSE 128 END),
	CONSTRAINT "egress_addresses_helo_name_check" CHECK ("helo_name" ~ '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$')
);--> statement-breakpoint
CREATE INDEX "egress_addresses_pool_name_idx" ON "egress_addresses" ("pool_name");
