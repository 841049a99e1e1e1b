-- The free plan (docs/api-decisions.md, "Keys and accounts"): every new account starts on it.
INSERT INTO "plans" ("id", "name", "per_minute", "per_hour", "per_day", "per_30_days", "max_active")
VALUES ('plan_free', 'free', 30, 300, 300, 3000, 250)
ON CONFLICT ("id") DO NOTHING;
