import type { Config } from '@mailer/config';
import { createKeyLookup, openDatabase, type Database, type DatabaseHandle, type KeyLookup } from '@mailer/db';
import { createDnsResolver, type DnsResolver } from '@mailer/dns';
import { createLogger, type Logger } from '@mailer/logger';
import { createCursorCodec, type CursorCodec } from '@mailer/domain';
import { createDeliveryQueue, openRedis, type DeliveryQueue, type Redis } from '@mailer/queue';
import { BodyBudget } from './http/body-budget';
import { IntakeBatcher } from '@mailer/operations';
import { createApiMetrics, type ApiMetrics } from './operator/metrics';

/** Everything a request handler may touch, built once at boot (and by tests, against real services). */
export interface ApiDependencies {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  db: Database;
  /** API keys by hash, concurrent lookups sharing one query. */
  keys: KeyLookup;
  redis: Redis;
  deliveryQueue: DeliveryQueue;
  cursors: CursorCodec;
  /** The configured resolver (DNS_SERVERS, DNS_TIMEOUT) for domain checks. */
  dns: DnsResolver;
  metrics: ApiMetrics;
  /** Accepted messages of concurrent requests, one transaction per account's batch. */
  intake: IntakeBatcher;
  /** The request-body bytes the process holds at once (MAX_BODY_BYTES_IN_FLIGHT, shared per account). */
  bodyBudget: BodyBudget;
  /** The clock every rule that depends on time reads; tests move it. */
  now: () => Date;
}

export interface ContainerOverrides {
  logger?: Logger;
  now?: () => Date;
}

export function createContainer(config: Config, overrides: ContainerOverrides = {}): ApiDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'api' });
  const database = openDatabase(config.databaseUrl, config.databasePoolSize);
  const redis = openRedis(config.redis, 'producer');
  // Redis outages are reported by /readyz; intake continues and the reconciler catches up.
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
    metrics: createApiMetrics(deliveryQueue, database.db, now),
    cursors: createCursorCodec(config.encryptionKey),
    dns: createDnsResolver(config.dns),
    intake: new IntakeBatcher({ db: database.db, deliveryQueue, logger, now }),
    bodyBudget: new BodyBudget({ total: config.http.maxBodyBytesInFlight, perAccount: config.http.maxBodyBytesPerAccount }),
    now,
  };
}

export async function closeContainer(deps: ApiDependencies): Promise<void> {
  await deps.deliveryQueue.close().catch(() => undefined);
  deps.redis.disconnect();
  await deps.database.close();
}
