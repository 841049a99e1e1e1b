-- TLS reporting (docs/api-decisions.md, "Receivers' TLS policies"): each attempt that reached a TLS
-- negotiation says how it fared under its policy (`success` or an RFC 8460 result type, written in
-- @mailer/domain as TLS_RESULTS) and for which recipient domain, so that the daily reports count
-- sessions from the attempts themselves.
ALTER TABLE "attempts" ADD COLUMN "recipient_domain" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "tls_result" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_tls_result_check" CHECK ("tls_result" in ('success', 'starttls-not-supported', 'certificate-host-mismatch', 'certificate-expired', 'certificate-not-trusted', 'validation-failure'));--> statement-breakpoint
-- The daily report reads one UTC day of sessions; only attempts with a TLS result are in it.
CREATE INDEX "attempts_tls_sessions_idx" ON "attempts" USING btree ("started_at") WHERE "tls_result" is not null;--> statement-breakpoint
-- One report per recipient domain and UTC day, whichever daemon claims it first; its row says how
-- it went, and a claim that a daemon died holding is taken over once stale.
CREATE TABLE "tls_reports" (
	"policy_domain" text NOT NULL,
	"day" date NOT NULL,
	"status" text NOT NULL,
	"claimed_at" timestamp (3) with time zone NOT NULL,
	"detail" text,
	CONSTRAINT "tls_reports_pk" PRIMARY KEY ("policy_domain", "day"),
	CONSTRAINT "tls_reports_status_check" CHECK ("status" in ('sending', 'sent', 'failed', 'no_record'))
);
