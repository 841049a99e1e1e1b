import { purgeExpired, type RetentionResult } from '@mailer/operations';
import { USAGE_WINDOWS } from '@mailer/domain';
import type { WorkerDependencies } from '../container';

/** Usage rows must outlive the longest plan window, whatever RETENTION_DAYS says. */
const USAGE_KEPT_MS = Math.max(...USAGE_WINDOWS.map((window) => window.seconds)) * 1_000;
const BATCH_SIZE = 1_000;

/**
 * One retention pass (docs/api-decisions.md, "Operations"): finished messages older than RETENTION_DAYS
 * with their history, expired idempotency keys and usage no window counts any more.
 * Every daemon runs it; concurrent passes only delete the same rows once.
 */
export async function purgeExpiredData(deps: Pick<WorkerDependencies, 'db' | 'config' | 'logger' | 'now'>): Promise<RetentionResult> {
  const result = await purgeExpired(deps.db, {
    now: deps.now(),
    retentionDays: deps.config.retentionDays,
    usageWindowMs: USAGE_KEPT_MS,
    batchSize: BATCH_SIZE,
  });
  if (result.emails + result.webhookDeliveries + result.idempotencyKeys + result.usageRows + result.inboundEmails + result.retiredTrackedLinks > 0) deps.logger.info('retention pass deleted expired data', { ...result });
  return result;
}
