import type { Config } from '@mailer/config';
import { createKeyLookup, openDatabase, type Database, type DatabaseHandle, type KeyLookup } from '@mailer/db';
import { createLogger, type Logger } from '@mailer/logger';
import { IntakeBatcher } from '@mailer/operations';
import { createDeliveryQueue, openRedis, type DeliveryQueue, type Redis } from '@mailer/queue';
import { AuthThrottle } from './auth-throttle';
import { createSubmissionMetrics, type SubmissionMetrics } from './metrics';

/** What the submission listener works with, built once at boot (and by tests, against real services). */
export interface SubmissionDependencies {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  db: Database;
  /** Sending keys by hash, as the API finds them. */
  keys: KeyLookup;
  redis: Redis;
  deliveryQueue: DeliveryQueue;
  /** The intake of POST /v1/emails: one transaction per account's batch of messages. */
  intake: IntakeBatcher;
  throttle: AuthThrottle;
  metrics: SubmissionMetrics;
  now: () => Date;
}

export interface ContainerOverrides {
  logger?: Logger;
  now?: () => Date;
}

export function createContainer(config: Config, overrides: ContainerOverrides = {}): SubmissionDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'submission' });
  // A message takes one connection for its transaction; sessions wait for their turn rather than open more.
  const database = openDatabase(config.databaseUrl, Math.min(config.databasePoolSize, 10));
  const redis = openRedis(config.redisUrl, 'producer');
  // As for the API: Redis away does not stop intake; the daemon's reconciler enqueues later.
  redis.on('error', () => undefined);
  const deliveryQueue = createDeliveryQueue(redis, config.redisPrefix);
  const now = overrides.now ?? (() => new Date());
  return {
    config,
    logger,
    database,
    db: database.db,
    keys: createKeyLookup(database.db),
    redis,
    deliveryQueue,
    intake: new IntakeBatcher({ db: database.db, deliveryQueue, logger, now }),
    throttle: new AuthThrottle(now),
    metrics: createSubmissionMetrics(),
    now,
  };
}

export async function closeContainer(deps: SubmissionDependencies): Promise<void> {
  await deps.deliveryQueue.close().catch(() => undefined);
  deps.redis.disconnect();
  await deps.database.close();
}
