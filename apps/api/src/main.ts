import { describeStartupFailure, loadConfig } from '@mailer/config';
import { runService } from '@mailer/logger';
import { checkEncryptionKey, listenOrExplain, logConfigWarnings } from '@mailer/operations';
import { closeContainer, createContainer } from './container';
import { listen } from './server';

async function main() {
  const config = loadConfig();
  const deps = createContainer(config);
  logConfigWarnings(config, deps.logger);
  await checkEncryptionKey(deps.db, config, deps.logger);
  const server = await listenOrExplain(deps.logger, { variable: 'PORT', port: config.port, host: config.host }, () => listen(deps));
  if (!server) return void closeContainer(deps).finally(() => process.exit(1));
  deps.logger.info('api listening', { host: config.host, port: config.port });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('api stopping', { signal });
    // Stop accepting, let in-flight requests finish, then close pools.
    server.close(() => void closeContainer(deps).finally(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

runService('api', main, describeStartupFailure);
