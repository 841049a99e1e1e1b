-- Reputation protection (docs/api-decisions.md, "Reputation"): each plan says from which volume
-- and at which rates an account is put under review or paused. Rates are fractions (0.05 is 5 %).
ALTER TABLE "plans" ADD COLUMN "reputation_min_volume" integer DEFAULT 200 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "review_bounce_rate" numeric(7, 6) DEFAULT 0.05 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "review_complaint_rate" numeric(7, 6) DEFAULT 0.001 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "pause_bounce_rate" numeric(7, 6) DEFAULT 0.10 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "pause_complaint_rate" numeric(7, 6) DEFAULT 0.005 NOT NULL;--> statement-breakpoint
-- A review threshold above its pause threshold would pause an account without reviewing it first.
ALTER TABLE "plans" ADD CONSTRAINT "plans_reputation_check" CHECK (
  "reputation_min_volume" >= 1
  and "review_bounce_rate" > 0 and "review_bounce_rate" <= "pause_bounce_rate" and "pause_bounce_rate" <= 1
  and "review_complaint_rate" > 0 and "review_complaint_rate" <= "pause_complaint_rate" and "pause_complaint_rate" <= 1
);--> statement-breakpoint
-- The account's sending status, as the last evaluation or an operator left it; the set is written
-- in @mailer/domain (SENDING_STATUSES), and a test compares them.
ALTER TABLE "accounts" ADD COLUMN "sending_status" text DEFAULT 'enabled' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "sending_reason" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "sending_since" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_sending_status_check" CHECK ("sending_status" in ('enabled', 'under_review', 'paused'));--> statement-breakpoint
-- Per account and hour, the to/cc deliveries that ended after an attempt, the accepted ones among
-- them, the hard bounces and the complaints reported in that hour: the transition writer adds to
-- them in the transaction of the change, so that a 24-hour rate reads at most 24 rows per account.
CREATE TABLE "account_reputation_hours" (
	"account_id" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"terminal" integer DEFAULT 0 NOT NULL,
	"accepted" integer DEFAULT 0 NOT NULL,
	"hard_bounces" integer DEFAULT 0 NOT NULL,
	"complaints" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "account_reputation_hours_pkey" PRIMARY KEY ("account_id", "hour"),
	CONSTRAINT "account_reputation_hours_hour_check" CHECK ("hour" = date_trunc('hour', "hour", 'UTC'))
);
