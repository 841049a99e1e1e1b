import { describeStartupFailure, loadConfig } from '@mailer/config';
import { runService } from '@mailer/logger';
import { checkEncryptionKey, listenOrExplain, logConfigWarnings, serveMetrics, stopListenersOnSignal } from '@mailer/operations';
import { createContainer } from './container';
import { loadInboundTls } from './tls-material';
import { createInboundServer, listenInbound } from './inbound-server';

/**
 * The inbound listener: config → container → key check → certificate → SMTP (STARTTLS) on INBOUND_PORT → metrics on
 * INBOUND_METRICS_PORT → signal handling (SIGTERM/SIGINT: stop accepting, let open sessions
 * end within a few seconds, close the database, exit).
 */
async function main() {
  const config = loadConfig();
  const deps = createContainer(config);
  logConfigWarnings(config, deps.logger);
  await checkEncryptionKey(deps.db, config, deps.logger);
  const tls = await loadInboundTls(config, deps.logger);
  const server = createInboundServer(deps, tls);
  const listener = { variable: 'INBOUND_PORT', port: config.inbound.port, host: config.host };
  const port = await listenOrExplain(deps.logger, listener, () => listenInbound(server, config.inbound.port, config.host));
  if (port === undefined) return void deps.database.close().finally(() => process.exit(1));
  const metrics = serveMetrics(deps.metrics.registry, { port: config.inbound.metricsPort, host: config.host, operatorToken: config.operatorToken }, deps.logger);
  deps.logger.info('inbound listening', { port, host: config.returnPath.inboundHost });
  stopListenersOnSignal(deps.logger, 'inbound', { servers: [server], metrics, close: () => deps.database.close() });
}

runService('inbound', main, describeStartupFailure);
