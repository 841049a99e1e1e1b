-- An account's usage row is created with the account (createAccount), so that intake only locks it: accounts
-- created before this migration get theirs here (docs/api-decisions.md, "Data layer").
INSERT INTO "account_usage" ("account_id") SELECT "id" FROM "accounts" ON CONFLICT DO NOTHING;
