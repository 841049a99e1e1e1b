-- Each stream of an account has its own sending status, reputation counts and, optionally, egress
-- pool (docs/api-decisions.md, "Streams"): pausing one stream leaves the other sending. The account's
-- status becomes that of both its streams.
CREATE TABLE "account_streams" (
	"account_id" text NOT NULL,
	"stream" text NOT NULL,
	"sending_status" text DEFAULT 'enabled' NOT NULL,
	"sending_reason" text,
	"sending_since" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"egress_pool" text,
	CONSTRAINT "account_streams_pkey" PRIMARY KEY ("account_id", "stream"),
	CONSTRAINT "account_streams_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id"),
	CONSTRAINT "account_streams_egress_pool_fkey" FOREIGN KEY ("egress_pool") REFERENCES "egress_pools" ("name"),
	CONSTRAINT "account_streams_stream_check" CHECK ("stream" IN ('transactional', 'broadcast')),
	CONSTRAINT "account_streams_sending_status_check" CHECK ("sending_status" IN ('enabled', 'under_review', 'paused'))
);--> statement-breakpoint
INSERT INTO "account_streams" ("account_id", "stream", "sending_status", "sending_reason", "sending_since")
SELECT a."id", s."stream", a."sending_status", a."sending_reason", a."sending_since"
  FROM "accounts" a CROSS JOIN (VALUES ('transactional'), ('broadcast')) AS s("stream");--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "sending_status";--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "sending_reason";--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "sending_since";--> statement-breakpoint
ALTER TABLE "account_reputation_hours" ADD COLUMN "stream" text DEFAULT 'transactional' NOT NULL;--> statement-breakpoint
ALTER TABLE "account_reputation_hours" ALTER COLUMN "stream" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "account_reputation_hours" ADD CONSTRAINT "account_reputation_hours_stream_check" CHECK ("stream" IN ('transactional', 'broadcast'));--> statement-breakpoint
ALTER TABLE "account_reputation_hours" DROP CONSTRAINT "account_reputation_hours_pkey";--> statement-breakpoint
ALTER TABLE "account_reputation_hours" ADD CONSTRAINT "account_reputation_hours_pkey" PRIMARY KEY ("account_id", "stream", "hour");
