import type { Config } from '@mailer/config';
import type { Database, DatabaseHandle, KeyLookup } from '@mailer/db';
import { createDnsResolver, createRecordLookup, type DnsResolver, type RecordLookup } from '@mailer/dns';
import { createLogger, type Logger } from '@mailer/logger';
import { createCursorCodec, type CursorCodec } from '@mailer/domain';
import { AuthThrottle, type DeliveryQueue, type Redis } from '@mailer/queue';
import { BodyBudget, closeIntakeServices, engagementServices, openIntakeServices, type EngagementDependencies, type IntakeBatcher } from '@mailer/operations';
import { createApiMetrics, type ApiMetrics } from './operator/metrics';
import { ConsoleSessions } from './console/console-sessions';

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
  /** Raw lookups through the same resolvers, for mailauth's SPF evaluation of the domains' compliance. */
  lookup: RecordLookup;
  metrics: ApiMetrics;
  /** Accepted messages of concurrent requests, one transaction per account's batch. */
  intake: IntakeBatcher;
  /** Opens and clicks of concurrent requests, one look-up and one transaction per batch (docs/api-decisions.md, "Opens and clicks"). */
  tracking: EngagementDependencies;
  /** The request-body bytes the process holds at once (MAX_BODY_BYTES_IN_FLIGHT, shared per account). */
  bodyBudget: BodyBudget;
  /** The operator console's sessions, in Redis (docs/api-decisions.md, "Operator console"). */
  consoleSessions: ConsoleSessions;
  /** Failed console sign-ins per client address, in Redis with every API process (the submission AUTH throttle's rule). */
  consoleThrottle: AuthThrottle;
  /** The clock every rule that depends on time reads; tests move it. */
  now: () => Date;
}

export interface ContainerOverrides {
  logger?: Logger;
  now?: () => Date;
}

export function createContainer(config: Config, overrides: ContainerOverrides = {}): ApiDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'api' });
  const now = overrides.now ?? (() => new Date());
  const services = openIntakeServices(config, logger, now, config.databasePoolSize);
  return {
    config,
    logger,
    ...services,
    metrics: createApiMetrics(services.deliveryQueue, services.db, now),
    cursors: createCursorCodec(config.encryptionKey),
    dns: createDnsResolver(config.dns),
    lookup: createRecordLookup(config.dns),
    tracking: engagementServices(services.db),
    bodyBudget: new BodyBudget(config.bodyBudget),
    consoleSessions: new ConsoleSessions(services.redis, config.redisPrefix, config.console.sessionIdleTimeoutMs),
    consoleThrottle: new AuthThrottle(services.redis, config.redisPrefix, 'console', (error) => logger.warn('console sign-in throttle counts in this process: Redis is unreachable', { error: error.message }), now),
    now,
  };
}

export const closeContainer = (deps: ApiDependencies): Promise<void> => closeIntakeServices(deps);
