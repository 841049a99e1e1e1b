-- Every domain signs with an Ed25519 key (RFC 8463) beside its RSA key, on a selector of its own
-- (docs/api-decisions.md, "DKIM keys"). A migration cannot make keys, so existing domains hold
-- none until the service generates one at the domain's first DNS read or check; the three key
-- columns are set together.
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_selector" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_public_key" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_private_key_sealed" text;--> statement-breakpoint
-- Whether the Ed25519 record verified: the signature is added only then; readiness ignores it.
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_status" text DEFAULT 'not_checked' NOT NULL;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_dkim_ed25519_key_check" CHECK (
  ("dkim_ed25519_selector" is null) = ("dkim_ed25519_public_key" is null)
  and ("dkim_ed25519_selector" is null) = ("dkim_ed25519_private_key_sealed" is null));--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_dkim_ed25519_status_check" CHECK ("dkim_ed25519_status" in ('not_checked', 'missing', 'mismatch', 'verified'));
