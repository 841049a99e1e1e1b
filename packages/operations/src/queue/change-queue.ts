import { applyQueueAction, type Database } from '@mailer/db';
import type { QueueAction } from '@mailer/domain';
import type { DeliveryQueue } from '@mailer/queue';
import { resolveQueueSelection, type DestinationSnapshots, type QueueSelectionInput } from './queue-selection';

export interface QueueChangeDependencies {
  db: Database;
  /** Opened on first use: only a release or a flush enqueues. */
  deliveryQueue: () => Promise<DeliveryQueue>;
  destinationSnapshots: DestinationSnapshots;
}

/**
 * `queue hold`, `release`, `delete` and `flush` (docs/api-decisions.md, "Queue operations") on
 * the waiting deliveries selected, each a transition of the transition writer. A released or
 * flushed delivery is due now and its message's job is enqueued now; with Redis away the change
 * stands and the reconciler enqueues the job within RECONCILE_INTERVAL (`enqueued: false`).
 * Resolves with how many deliveries changed.
 */
export async function changeQueue(deps: QueueChangeDependencies, action: QueueAction, input: QueueSelectionInput, now: Date) {
  const selection = await resolveQueueSelection(input, deps.destinationSnapshots, true);
  const { changed, messages } = await applyQueueAction(deps.db, action, selection, now);
  if ((action !== 'release' && action !== 'flush') || messages.length === 0) return { action, changed, enqueued: false };
  const enqueued = await deps
    .deliveryQueue()
    .then((queue) => queue.enqueueMany(messages.map((m) => ({ emailId: m.emailId, accountId: m.accountId, dueAt: now })), now))
    .then(
      () => true,
      () => false,
    );
  return { action, changed, enqueued };
}
