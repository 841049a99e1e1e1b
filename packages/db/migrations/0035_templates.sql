ALTER TABLE "plans" ADD COLUMN "max_templates" integer DEFAULT 100 NOT NULL;
--> statement-breakpoint
CREATE TABLE "templates" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"version" integer NOT NULL,
	"name" text NOT NULL,
	"alias" text,
	"subject" text NOT NULL,
	"html" text,
	"text" text,
	"variables" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "template_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"template_id" text NOT NULL REFERENCES "templates"("id"),
	"version" integer NOT NULL,
	"name" text NOT NULL,
	"alias" text,
	"subject" text NOT NULL,
	"html" text,
	"text" text,
	"variables" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "template_versions_template_version_key" UNIQUE ("template_id", "version")
);
--> statement-breakpoint
CREATE INDEX "templates_account_list_idx" ON "templates" USING btree ("account_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE deleted_at is null;
--> statement-breakpoint
CREATE UNIQUE INDEX "templates_account_alias_key" ON "templates" USING btree ("account_id","alias") WHERE deleted_at is null and alias is not null;
--> statement-breakpoint
CREATE INDEX "template_versions_list_idx" ON "template_versions" USING btree ("template_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "template_id" text;
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "template_version" integer;
