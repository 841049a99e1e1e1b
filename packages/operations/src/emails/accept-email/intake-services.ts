import type { Config } from '@mailer/config';
import { createKeyLookup, openDatabase, type Database, type DatabaseHandle, type KeyLookup } from '@mailer/db';
import type { Logger } from '@mailer/logger';
import { createDeliveryQueue, openRedis, type DeliveryQueue, type Redis } from '@mailer/queue';
import { IntakeBatcher } from './intake-batcher';

/** What an app that takes messages in (the API, the SMTP submission listener) opens at boot. */
export interface IntakeServices {
  database: DatabaseHandle;
  db: Database;
  /** Active API keys by hash, concurrent lookups sharing one query. */
  keys: KeyLookup;
  redis: Redis;
  deliveryQueue: DeliveryQueue;
  /** Accepted messages of concurrent requests, one transaction per account's batch. */
  intake: IntakeBatcher;
}

export function openIntakeServices(config: Config, logger: Logger, now: () => Date, poolSize: number): IntakeServices {
  const database = openDatabase(config.databaseUrl, poolSize);
  const redis = openRedis(config.redis, 'producer');
  // Redis outages are reported by /readyz; intake continues and the daemon's reconciler catches up.
  redis.on('error', () => undefined);
  const deliveryQueue = createDeliveryQueue(redis, config.redisPrefix);
  return { database, db: database.db, keys: createKeyLookup(database.db), redis, deliveryQueue, intake: new IntakeBatcher({ db: database.db, deliveryQueue, logger, now }) };
}

export async function closeIntakeServices(services: IntakeServices): Promise<void> {
  await services.deliveryQueue.close().catch(() => undefined);
  services.redis.disconnect();
  await services.database.close();
}
