import { LINK_TOKEN_VALID_DAYS, TERMINAL_STATUSES } from '@mailer/domain';
import { booleansParam, type Database } from '../database';
import { lockMessages } from '../deliveries/locked-messages';
import { inTransaction } from '../transaction';

export interface RetentionPolicy {
  now: Date;
  /** Message metadata (attempts, events, deliveries) older than this many days is deleted. */
  retentionDays: number;
  /** Usage rows are kept as long as the longest plan window needs them. */
  usageWindowMs: number;
  /** Rows per transaction: bounded so a large backlog never holds long locks. */
  batchSize: number;
}

export interface RetentionResult {
  emails: number;
  webhookDeliveries: number;
  idempotencyKeys: number;
  usageRows: number;
  /** Received messages (docs/api-decisions.md, "Inbound mail"), raw bytes included. */
  inboundEmails: number;
  /** The links of deleted tracked messages whose every click token has expired ("Opens and clicks"). */
  retiredTrackedLinks: number;
}

/**
 * A token is issued, at the latest, when its message completes, and verifies for
 * LINK_TOKEN_VALID_DAYS whole days after the day it was issued: a day more covers the last one.
 */
const TRACKED_LINKS_KEPT = `${LINK_TOKEN_VALID_DAYS + 1} days`;

async function deleteInBatches(deleteBatch: () => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await deleteBatch();
    total += count;
    if (count < batchSize) return total;
  }
}

/**
 * Deletes what the service no longer owes anyone: finished messages past retention with
 * their deliveries, attempts and events (their attachments cascade), finished webhook
 * deliveries past retention with their events, expired idempotency
 * keys, usage rows no plan window can see, and received messages past retention. A deleted
 * message's tracked links stay until its click tokens expire (retired_tracked_links). Messages still owed a delivery are kept
 * whatever their age. Only terminal deliveries are deleted, so no counter moves
 * (counterDeltas); their locks come first, as for every writer of deliveries (lock-order).
 */
export async function purgeExpired(db: Database, policy: RetentionPolicy): Promise<RetentionResult> {
  const emailCutoff = new Date(policy.now.getTime() - policy.retentionDays * 86_400_000);
  const usageCutoff = new Date(policy.now.getTime() - policy.usageWindowMs);
  const emails = await deleteInBatches(
    () =>
      inTransaction(db, async (tx) => {
        const [expired] = await tx.send(
          tx.sql`select id from emails where created_at < ${emailCutoff} and status = any(${TERMINAL_STATUSES}::text[]) limit ${policy.batchSize}`,
        );
        const ids = expired.map((r) => r.id as string);
        if (ids.length > 0) {
          await tx.commit(
            // In the lock order: a lease renewal may hold one of them (see renewLeases).
            lockMessages(tx, ids),
            tx.sql`
              insert into retired_tracked_links (delivery_id, links, expires_at)
              select d.id, e.tracked_links, e.completed_at + ${TRACKED_LINKS_KEPT}::interval
                from emails e join deliveries d on d.email_id = e.id
               where e.id = any(${ids}::text[]) and e.track_clicks and e.tracked_links is not null and d.kind <> 'bcc'
                 and e.completed_at + ${TRACKED_LINKS_KEPT}::interval > ${policy.now}
              on conflict (delivery_id) do nothing`,
            tx.sql`delete from deliveries where email_id = any(${ids}::text[])`,
            tx.sql`delete from attempts where email_id = any(${ids}::text[])`,
            tx.sql`delete from events where email_id = any(${ids}::text[])`,
            tx.sql`delete from emails where id = any(${ids}::text[])`,
          );
        }
        return ids.length;
      }),
    policy.batchSize,
  );
  // Finished webhook deliveries past retention, then their events once no delivery is left.
  const webhookDeliveries = await deleteInBatches(
    () =>
      inTransaction(db, async (tx) => {
        const [finished] = await tx.send(tx.sql`
          select id, event_id from webhook_deliveries
           where status = any(${['succeeded', 'failed']}::text[]) and next_attempt_at < ${emailCutoff} limit ${policy.batchSize}`);
        if (finished.length > 0) {
          await tx.commit(
            tx.sql`delete from webhook_deliveries where id = any(${finished.map((r) => r.id as string)}::text[])`,
            tx.sql`
              delete from webhook_events e where e.id = any(${finished.map((r) => r.event_id as string)}::text[])
                 and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`,
          );
        }
        return finished.length;
      }),
    policy.batchSize,
  );
  // Each batch picks its rows through an index, then deletes them by primary key.
  const idempotencyKeys = await deleteInBatches(async () => {
    const expired = await db`select account_id, test, key from idempotency_keys where expires_at <= ${policy.now} limit ${policy.batchSize}`;
    if (expired.length === 0) return 0;
    const deleted = await db`
      delete from idempotency_keys k
       using unnest(${expired.map((r) => r.account_id as string)}::text[], ${booleansParam(expired.map((r) => r.test as boolean))}::text[]::boolean[],
                    ${expired.map((r) => r.key as string)}::text[]) as x(account_id, test, key)
       where k.account_id = x.account_id and k.test = x.test and k.key = x.key`;
    return deleted.count;
  }, policy.batchSize);
  const usageRows = await deleteInBatches(async () => {
    // Per account, its oldest usage first (recipient_usage_account_idx).
    const expired = await db`
      select x.account_id, x.cumulative
        from account_usage a
       cross join lateral (select r.account_id, r.cumulative from recipient_usage r
                            where r.account_id = a.account_id and r.accepted_at < ${usageCutoff}
                            order by r.accepted_at limit ${policy.batchSize}) x
       limit ${policy.batchSize}`;
    if (expired.length === 0) return 0;
    const deleted = await db`
      delete from recipient_usage r
       using unnest(${expired.map((row) => row.account_id as string)}::text[], ${expired.map((row) => String(row.cumulative))}::bigint[]) as x(account_id, cumulative)
       where r.account_id = x.account_id and r.cumulative = x.cumulative`;
    return deleted.count;
  }, policy.batchSize);
  // Received messages past retention, oldest first through their index (inbound_emails_created_idx).
  const inboundEmails = await deleteInBatches(async () => {
    const deleted = await db`
      delete from inbound_emails where id in (select id from inbound_emails where created_at < ${emailCutoff} order by created_at limit ${policy.batchSize})`;
    return deleted.count;
  }, policy.batchSize);
  const retiredTrackedLinks = await deleteInBatches(async () => {
    const deleted = await db`
      delete from retired_tracked_links
       where delivery_id in (select delivery_id from retired_tracked_links where expires_at <= ${policy.now} order by expires_at limit ${policy.batchSize})`;
    return deleted.count;
  }, policy.batchSize);
  return { emails, webhookDeliveries, idempotencyKeys, usageRows, inboundEmails, retiredTrackedLinks };
}
