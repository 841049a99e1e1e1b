import type { Config } from '@mailer/config';
import { openDatabase, type Database, type DatabaseHandle } from '@mailer/db';
import { createRecordLookup, type RecordLookup } from '@mailer/dns';
import { returnPathKey } from '@mailer/domain';
import { createLogger, type Logger } from '@mailer/logger';
import { createInboundMetrics, type InboundMetrics } from './metrics';
import { createReadingLimit, type ReadingLimit } from './reports/reading-limit';

/** What the inbound listener works with, built once at boot (and by tests, against a test database). */
export interface InboundDependencies {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  db: Database;
  /** Verifies the return-path tokens (derived from ENCRYPTION_KEY, as the delivery daemon's). */
  returnPathKey: Buffer;
  metrics: InboundMetrics;
  /** Bounds the messages parsed at once (INBOUND_REPORT_CONCURRENCY). */
  reading: ReadingLimit;
  /** mailauth's lookups of received mail, through DNS_SERVERS. */
  lookup: RecordLookup;
  now: () => Date;
}

export function createContainer(config: Config, overrides: { logger?: Logger } = {}): InboundDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'inbound' });
  // A report takes one connection for its lookup and transaction; a few suffice for many sessions.
  const database = openDatabase(config.databaseUrl, Math.min(config.databasePoolSize, 10));
  // Reports and received mail (each up to 25 MiB) take turns to be parsed.
  const reading = createReadingLimit(config.inbound.reportConcurrency);
  return { config, logger, database, db: database.db, returnPathKey: returnPathKey(config.encryptionKey), metrics: createInboundMetrics(reading), reading, lookup: createRecordLookup(config.dns), now: () => new Date() };
}
