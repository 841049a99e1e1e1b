CREATE TABLE "account_usage" (
	"account_id" text PRIMARY KEY NOT NULL,
	"recipients_total" bigint DEFAULT 0 NOT NULL,
	"active_deliveries" integer DEFAULT 0 NOT NULL,
	"last_accepted_at" timestamp (3) with time zone
);
--> statement-breakpoint
DROP INDEX "recipient_usage_account_idx";--> statement-breakpoint
ALTER TABLE "recipient_usage" ADD COLUMN "cumulative" bigint NOT NULL;--> statement-breakpoint
ALTER TABLE "account_usage" ADD CONSTRAINT "account_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recipient_usage_cumulative_idx" ON "recipient_usage" USING btree ("account_id","cumulative");--> statement-breakpoint
CREATE INDEX "recipient_usage_account_idx" ON "recipient_usage" USING btree ("account_id","accepted_at","cumulative");