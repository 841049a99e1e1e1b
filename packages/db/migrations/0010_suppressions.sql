CREATE TABLE "suppressions" (
	"account_id" text NOT NULL,
	"email_key" text NOT NULL,
	"email" text NOT NULL,
	"reason" text NOT NULL,
	"email_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_account_id_email_key_pk" PRIMARY KEY("account_id","email_key")
);
--> statement-breakpoint
CREATE INDEX "suppressions_account_list_idx" ON "suppressions" USING btree ("account_id","created_at" DESC NULLS LAST,"email_key" DESC NULLS LAST);