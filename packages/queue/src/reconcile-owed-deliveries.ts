import type { DeliveryQueue, DueMessage } from './producer';

/** How long after a delivery falls due the reconciler steps in for a job that should have run by then. */
export const RECONCILE_GRACE_MS = 15_000;

const ADD_BULK_CHUNK = 500;

/**
 * One reconciliation pass: for every message owed a delivery (pages from the database,
 * e.g. `owedDeliveryJobs` of @mailer/db), adds the job named by (email, due time) unless
 * Redis holds it. Postgres is the truth and job ids are deterministic, so this repairs a
 * lost enqueue (Redis down at acceptance, a FLUSHALL, a worker that died) without ever
 * creating a second job for the same owed work. Returns how many jobs it added.
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
