-- The pool an account's mail leaves from; null: the pool named `default` when there is one, else
-- the machine's own address (docs/api-decisions.md, "Providers and egress pools"). A pool cannot
-- be dropped while an account is assigned to it.
ALTER TABLE "accounts" ADD COLUMN "egress_pool" text REFERENCES "egress_pools"("name") ON DELETE RESTRICT;
