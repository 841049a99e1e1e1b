import { scheduledRotationCutoff } from '@mailer/domain';
import { findDomainsDueForRotation, startDkimRotation } from '@mailer/operations';
import type { WorkerDependencies } from '../container';

/** Rotations started per pass at most: each makes an RSA key (tens of milliseconds of CPU, off the event loop). */
export const ROTATION_BATCH_SIZE = 20;

/**
 * One pass of DKIM_ROTATION_INTERVAL (docs/api-decisions.md, "DKIM keys"): domains whose keys
 * have signed for the interval and that have no pending rotation get one, as
 * `POST /v1/domains/{id}/dkim/rotate` starts it (pending keys, `domain.dkim_rotation_pending`).
 * Signing switches later, when a check verifies the new records. Every daemon runs passes; when
 * two pick one domain, one of them starts its rotation. Returns how many this pass started.
 */
export async function rotateDueDkimKeys(deps: Pick<WorkerDependencies, 'db' | 'config' | 'logger' | 'now'>): Promise<number> {
  const intervalMs = deps.config.worker.dkimRotationIntervalMs;
  if (intervalMs === null) return 0;
  const now = deps.now();
  const due = await findDomainsDueForRotation(deps.db, { cutoff: scheduledRotationCutoff(intervalMs, now), limit: ROTATION_BATCH_SIZE });
  let started = 0;
  for (const domain of due) {
    try {
      if ((await startDkimRotation(deps.db, deps.config.encryptionKey, deps.config.returnPath, domain, now)) === 'started') started++;
    } catch (error) {
      deps.logger.child({ domain_id: domain.id }).warn('scheduled DKIM rotation failed', { error: (error as Error).message });
    }
  }
  return started;
}
