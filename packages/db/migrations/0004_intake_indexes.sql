DROP INDEX "deliveries_account_active_idx";--> statement-breakpoint
DROP INDEX "recipient_usage_cumulative_idx";--> statement-breakpoint
ALTER TABLE "recipient_usage" DROP CONSTRAINT "recipient_usage_pkey";--> statement-breakpoint
ALTER TABLE "recipient_usage" ADD CONSTRAINT "recipient_usage_account_id_cumulative_pk" PRIMARY KEY("account_id","cumulative");
