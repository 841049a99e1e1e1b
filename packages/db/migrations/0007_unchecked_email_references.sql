-- Deliveries, attempts and events no longer check their message. Each check ran, per
-- inserted row, a lookup plus a FOR KEY SHARE lock on the emails row (a WAL record and a
-- dirtied page): five per one-recipient message (its delivery, its attempt, three events).
-- Every child row is written by the transaction that wrote its message, or under a lease on
-- the message's deliveries, so it always has one; the two places that delete messages
-- (retention, and intake giving back what the plan refused) delete these children in the
-- same statement. Attachments keep their cascading key: they are rare and written once.
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_email_id_emails_id_fk";
--> statement-breakpoint
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_email_id_emails_id_fk";
--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_email_id_emails_id_fk";
