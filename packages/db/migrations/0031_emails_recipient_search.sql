-- The operator console's search by recipient (docs/api-decisions.md, "Operator console"): a GIN
-- index over the to and cc addresses by their key (the address in lower case, as Mailbox.key),
-- so a recipient is found without reading every message. BCC addresses are not in emails.to or
-- emails.cc (they live only on their deliveries), so no message is ever found by one.
CREATE INDEX "emails_recipient_keys_idx" ON "emails" USING gin ((lower(("to" || "cc")::text)::jsonb) jsonb_path_ops);
