-- An account an operator disabled (`account disable`, docs/api-decisions.md, "Queue operations"):
-- its keys are refused with 401 `unauthorized` until it is enabled again; nothing else of it changes.
ALTER TABLE "accounts" ADD COLUMN "disabled_at" timestamp (3) with time zone;
