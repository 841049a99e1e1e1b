-- Webhook formats (docs/api-decisions.md, "Webhooks"): the shape an endpoint receives events in,
-- and for the postmark format the HTTP Basic credentials taken from its URL, sealed with
-- ENCRYPTION_KEY like the signing secrets (the URL is stored without them).
ALTER TABLE "webhook_endpoints" ADD COLUMN "format" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "basic_auth_sealed" text;
