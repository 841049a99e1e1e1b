import { sql } from 'drizzle-orm';
import type { Database } from '../database';

export interface RetentionPolicy {
  now: Date;
  /** Message metadata (attempts, events, deliveries) older than this many days is deleted. */
  retentionDays: number;
  /** Usage rows are kept as long as the longest plan window needs them. */
  usageWindowMs: number;
  /** Rows per DELETE statement: bounded so a large backlog never holds long locks. */
  batchSize: number;
}

export interface RetentionResult {
  emails: number;
  idempotencyKeys: number;
  usageRows: number;
}

async function deleteInBatches(db: Database, statement: (limit: number) => ReturnType<typeof sql>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.execute(statement(batchSize));
    const count = result.rowCount ?? 0;
    total += count;
    if (count < batchSize) return total;
  }
}

/**
 * Deletes what the service no longer owes anyone: finished messages past retention with
 * their deliveries, attempts and events (their attachments cascade), expired idempotency keys,
 * and usage rows no plan window can see. Messages still owed a delivery are kept whatever
 * their age.
 */
export async function purgeExpired(db: Database, policy: RetentionPolicy): Promise<RetentionResult> {
  const emailCutoff = new Date(policy.now.getTime() - policy.retentionDays * 86_400_000);
  const usageCutoff = new Date(policy.now.getTime() - policy.usageWindowMs);
  const emails = await deleteInBatches(
    db,
    (limit) => sql`with expired as materialized (
        select id from emails
        where created_at < ${emailCutoff} and status in ('accepted', 'bounced', 'failed')
        limit ${limit}
      ), expired_deliveries as (
        delete from deliveries where email_id in (select id from expired)
      ), expired_attempts as (
        delete from attempts where email_id in (select id from expired)
      ), expired_events as (
        delete from events where email_id in (select id from expired)
      )
      delete from emails where id in (select id from expired)`,
    policy.batchSize,
  );
  const idempotencyKeys = await deleteInBatches(
    db,
    (limit) => sql`delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys where expires_at <= ${policy.now} limit ${limit})`,
    policy.batchSize,
  );
  const usageRows = await deleteInBatches(
    db,
    (limit) => sql`delete from recipient_usage where ctid in (
      select ctid from recipient_usage where accepted_at < ${usageCutoff} limit ${limit})`,
    policy.batchSize,
  );
  return { emails, idempotencyKeys, usageRows };
}
