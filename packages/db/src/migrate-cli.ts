import { describeStartupFailure, loadConfig } from '@mailer/config';
import { createLogger, runService } from '@mailer/logger';
import { migrateDatabase } from './migrate';

runService(
  'migrate',
  async () => {
    const config = loadConfig();
    await migrateDatabase(config.databaseUrl);
    createLogger({ level: config.logLevel, service: 'migrate' }).info('migrations applied');
  },
  describeStartupFailure,
  'migration failed',
);
