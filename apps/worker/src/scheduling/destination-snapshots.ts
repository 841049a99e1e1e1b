import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { publishDestinationSnapshot, readDestinationLifts, removeDestinationSnapshot, SNAPSHOT_TTL_MS } from '@mailer/queue';
import type { WorkerDependencies } from '../container';

/** A third of the snapshot's time to live: a daemon stays listed through two lost writes. */
const PUBLISH_EVERY_MS = SNAPSHOT_TTL_MS / 3;

/**
 * Publishes the scheduler's destinations to Redis every few seconds under a key of this
 * daemon's, expiring soon after it stops writing, for `queue destinations`
 * (docs/api-decisions.md, "Scheduling"). Before each write it applies the operators' lifts of
 * suspensions it has not applied yet (docs/api-decisions.md, "Queue operations"), so that the
 * snapshot written shows them. Redis being away only skips a write.
 */
export function publishDestinations(deps: WorkerDependencies): { stop(): Promise<void> } {
  const daemon = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Destination key → the lift request last applied here (each applies once; requests expire in Redis).
  const applied = new Map<string, number>();
  const applyLifts = async () => {
    const lifts = await readDestinationLifts(deps.producerRedis, deps.config.redisPrefix);
    for (const destination of applied.keys()) if (!lifts.has(destination)) applied.delete(destination);
    for (const [destination, at] of lifts) {
      if (applied.get(destination) === at) continue;
      applied.set(destination, at);
      deps.scheduler.liftSuspension(destination);
    }
  };
  const publish = () =>
    applyLifts()
      .then(() =>
        publishDestinationSnapshot(deps.producerRedis, deps.config.redisPrefix, {
          daemon,
          at: deps.now().toISOString(),
          destinations: deps.scheduler.snapshot(),
        }),
      )
      .catch(() => undefined);
  const timer = setInterval(() => void publish(), PUBLISH_EVERY_MS);
  timer.unref();
  setImmediate(() => void publish());
  return {
    async stop() {
      clearInterval(timer);
      await removeDestinationSnapshot(deps.producerRedis, deps.config.redisPrefix, daemon).catch(() => undefined);
    },
  };
}
