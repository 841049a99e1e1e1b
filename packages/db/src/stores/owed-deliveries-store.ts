import { WAITING_STATUSES } from '@mailer/domain';
import type { Database } from '../database';
import { statusLiteral } from '../deliveries/status-literals';

/** A message owed a delivery job, due at `dueAt` (what the job id is derived from), and its account. */
export interface OwedDeliveryJob {
  emailId: string;
  dueAt: Date;
  accountId: string;
}

export interface OwedDeliveryQuery {
  now: Date;
  /**
   * Queued and deferred deliveries count as owed only once due this long ago, leaving
   * the API's own enqueue and the daemon's retry scheduling time to act first.
   */
  graceMs: number;
  /** Rows per page. */
  pageSize: number;
  /**
   * Only `sending` deliveries whose lease expired: the daemon's frequent look for the work
   * of a daemon that died (a range of at most the deliveries in flight).
   */
  expiredLeasesOnly?: boolean;
}

/**
 * Every message with a delivery owed an attempt, page by page in email id order: queued
 * or deferred ones due (`next_attempt_at` passed by the grace), and sending ones whose
 * lease expired (their worker died). A message's due time is its earliest owed
 * delivery's: `next_attempt_at`, or for an expired lease `lease_expires_at`, which
 * names a job distinct from the one that was lost with the worker.
 */
export async function* owedDeliveryJobs(db: Database, query: OwedDeliveryQuery): AsyncGenerator<OwedDeliveryJob[]> {
  const dueBy = new Date(query.now.getTime() - query.graceMs);
  let afterId = '';
  for (;;) {
    // isOwedAttempt's rule, with the grace on waiting deliveries (held ones are never owed); each
    // half is a range of deliveries_status_due_idx, so the scan reads owed deliveries only.
    const waiting = query.expiredLeasesOnly
      ? db``
      : db`select email_id, account_id, next_attempt_at as due_at from deliveries
            where status = any(${WAITING_STATUSES}::text[]) and next_attempt_at <= ${dueBy} and held_at is null and email_id > ${afterId}
           union all`;
    const rows = await db`
      select email_id, account_id, min(due_at) as due_at
        from (${waiting}
              select email_id, account_id, lease_expires_at as due_at from deliveries
               where status = ${statusLiteral(db, 'sending')} and lease_expires_at <= ${query.now} and held_at is null and email_id > ${afterId}) owed
       group by email_id, account_id
       order by email_id
       limit ${query.pageSize}`;
    const page = rows.map((r) => ({ emailId: r.email_id as string, dueAt: r.due_at as Date, accountId: r.account_id as string }));
    if (page.length > 0) yield page;
    if (page.length < query.pageSize) return;
    afterId = page[page.length - 1]!.emailId;
  }
}
