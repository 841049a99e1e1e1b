import { unsubscribeDelivery } from '@mailer/operations';
import type { InboundDependencies } from '../container';

/**
 * A message to the mailto: address of List-Unsubscribe: it does what the one-click POST does
 * (docs/api-decisions.md, "Unsubscribe"), for each delivery whose unsubscribe address it was
 * sent to (verified at RCPT). What it says is not read. A delivery that cannot be unsubscribed
 * (never delivered, or since gone) changes nothing, as a report that changes nothing; each
 * message is counted as a report of kind `unsubscribe`. Database failures are thrown, so that
 * the session answers 451 and the sender retries.
 */
export async function applyUnsubscribes(deps: InboundDependencies, deliveryIds: readonly string[]): Promise<void> {
  let applied = false;
  for (const deliveryId of new Set(deliveryIds)) {
    const outcome = await unsubscribeDelivery(deps.db, deliveryId, deps.now());
    applied ||= outcome.kind === 'unsubscribed';
    deps.logger.info('unsubscribe received', { effect: outcome.kind, reason: outcome.kind === 'none' ? outcome.reason : undefined });
  }
  deps.metrics.reports.inc({ kind: 'unsubscribe', result: applied ? 'applied' : 'ignored' });
}
