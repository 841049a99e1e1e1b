import { describeStartupFailure, loadConfig } from '@mailer/config';
import { runService } from '@mailer/logger';
import { checkEncryptionKey, logConfigWarnings } from '@mailer/operations';
import { DELIVERY_QUEUE } from '@mailer/queue';
import { createContainer } from './container';
import { startDaemon } from './daemon';
import { serveWorkerMetrics } from './metrics';
import { installShutdown } from './shutdown';

/** The delivery daemon: config → container → key check → BullMQ worker and reconciler → metrics → signal handling. */
async function main() {
  const config = loadConfig();
  const deps = createContainer(config);
  logConfigWarnings(config, deps.logger);
  await checkEncryptionKey(deps.db, config, deps.logger);
  const daemon = startDaemon(deps);
  const metrics = serveWorkerMetrics(deps.metrics, config, deps.logger);
  installShutdown(deps, daemon, metrics);
  deps.logger.info('worker started', { queue: DELIVERY_QUEUE, concurrency: config.worker.concurrency });
}

runService('worker', main, describeStartupFailure);
