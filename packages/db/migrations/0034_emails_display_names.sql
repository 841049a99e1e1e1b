-- The display names a request gave its to, cc and reply_to addresses, by address as stored in
-- "to", cc and reply_to; the headers carry them (docs/api-decisions.md, "Emails").
ALTER TABLE emails ADD COLUMN display_names jsonb NOT NULL DEFAULT '{}'::jsonb;
