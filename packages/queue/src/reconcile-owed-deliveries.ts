import type { DeliveryQueue, DueMessage } from './producer';

/** How long after a delivery falls due the reconciler steps in for a job that should have run by then. */
export const RECONCILE_GRACE_MS = 15_000;

const ADD_BULK_CHUNK = 500;

/**
 * One reconciliation pass: for every message owed a delivery (pages from the database,
 * e.g. `owedDeliveryJobs` of @mailer/db), adds the job named by (email, due time) unless
 * Redis holds it. Postgres is the truth and job ids are deterministic, so this repairs a
 * lost enqueue (Redis down at acceptance, a FLUSHALL, a worker that died) without ever
 * creating a second job for the same owed work. A message that went out in a job with
 * others (named after the first of them) counts as missing once it is past the grace and
 * gets a job of its own: one that finds it already leased or delivered at worst, and only
 * for a queue more than the grace behind. Returns how many jobs it added.
 */
export async function reconcileOwedDeliveries(queue: DeliveryQueue, owed: AsyncIterable<DueMessage[]>, now: Date): Promise<number> {
  let added = 0;
  for await (const page of owed) {
    for (let start = 0; start < page.length; start += ADD_BULK_CHUNK) {
      const missing = await queue.missing(page.slice(start, start + ADD_BULK_CHUNK));
      await queue.enqueueMany(missing, now);
      added += missing.length;
    }
  }
  return added;
}
