-- DKIM key rotation (docs/api-decisions.md, "DKIM keys"). The domain row keeps the keys that sign
-- now; `dkim_activated_at` says since when (DKIM_ROTATION_INTERVAL counts from it).
ALTER TABLE "domains" ADD COLUMN "dkim_activated_at" timestamp (3) with time zone;--> statement-breakpoint
UPDATE "domains" SET "dkim_activated_at" = "created_at";--> statement-breakpoint
ALTER TABLE "domains" ALTER COLUMN "dkim_activated_at" SET DEFAULT now();--> statement-breakpoint
ALTER TABLE "domains" ALTER COLUMN "dkim_activated_at" SET NOT NULL;--> statement-breakpoint
-- The other keys: a rotation's pending keys (activated_at and superseded_at null), which sign once
-- their records verify, and the keys they replaced (both set), listed as retiring, then retired.
-- A replaced key never signs again, so its private key is dropped.
CREATE TABLE "dkim_keys" (
  "domain_id" text NOT NULL REFERENCES "domains" ("id"),
  "selector" text NOT NULL,
  "algorithm" text NOT NULL,
  "public_key" text NOT NULL,
  "private_key_sealed" text,
  "record_status" text DEFAULT 'not_checked' NOT NULL,
  "created_at" timestamp (3) with time zone NOT NULL,
  "activated_at" timestamp (3) with time zone,
  "superseded_at" timestamp (3) with time zone,
  PRIMARY KEY ("domain_id", "selector"),
  CONSTRAINT "dkim_keys_algorithm_check" CHECK ("algorithm" in ('rsa', 'ed25519')),
  CONSTRAINT "dkim_keys_record_status_check" CHECK ("record_status" in ('not_checked', 'missing', 'mismatch', 'verified')),
  CONSTRAINT "dkim_keys_times_check" CHECK (("activated_at" is null) = ("superseded_at" is null)),
  CONSTRAINT "dkim_keys_private_key_check" CHECK (("superseded_at" is null) = ("private_key_sealed" is not null))
);--> statement-breakpoint
-- At most one pending rotation per domain: one pending key of each kind.
CREATE UNIQUE INDEX "dkim_keys_pending_key" ON "dkim_keys" ("domain_id", "algorithm") WHERE "superseded_at" is null;--> statement-breakpoint
-- The scheduled rotation's scan: active domains, keys active longest first.
CREATE INDEX "domains_dkim_activated_idx" ON "domains" ("dkim_activated_at") WHERE "deleted_at" is null;
