-- account_usage.active_deliveries counts an account's deliveries in queued, sending or
-- deferred (the plan's active-delivery limit). Statement-level triggers keep it current for
-- every writer of `deliveries` (intake, the delivery daemon, retention), one counter update
-- per account and statement. Intake reads it under the account_usage row lock.
CREATE FUNCTION count_active_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO account_usage AS u (account_id, active_deliveries)
    SELECT account_id, count(*) FROM new_rows
    WHERE status IN ('queued', 'sending', 'deferred')
    GROUP BY account_id ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE SET active_deliveries = u.active_deliveries + excluded.active_deliveries;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE account_usage u SET active_deliveries = u.active_deliveries + d.delta
    FROM (
      SELECT n.account_id,
             sum((n.status IN ('queued', 'sending', 'deferred'))::int - (o.status IN ('queued', 'sending', 'deferred'))::int) AS delta
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      GROUP BY n.account_id
    ) d
    WHERE u.account_id = d.account_id AND d.delta <> 0;
  ELSE
    UPDATE account_usage u SET active_deliveries = u.active_deliveries - d.gone
    FROM (
      SELECT account_id, count(*) AS gone FROM old_rows
      WHERE status IN ('queued', 'sending', 'deferred')
      GROUP BY account_id
    ) d
    WHERE u.account_id = d.account_id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER deliveries_count_active_insert AFTER INSERT ON deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_active_deliveries();
--> statement-breakpoint
CREATE TRIGGER deliveries_count_active_update AFTER UPDATE ON deliveries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_active_deliveries();
--> statement-breakpoint
CREATE TRIGGER deliveries_count_active_delete AFTER DELETE ON deliveries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_active_deliveries();
--> statement-breakpoint
INSERT INTO account_usage (account_id, active_deliveries)
SELECT account_id, count(*) FROM deliveries WHERE status IN ('queued', 'sending', 'deferred') GROUP BY account_id
ON CONFLICT (account_id) DO UPDATE SET active_deliveries = excluded.active_deliveries;
