import type { SMTPServer } from 'smtp-server';
import { describeStartupFailure, loadConfig } from '@mailer/config';
import { runService } from '@mailer/logger';
import { listenOrExplain, logConfigWarnings, serveMetrics, stopListenersOnSignal } from '@mailer/operations';
import { closeContainer, createContainer } from './container';
import { createSubmissionServer, listenSubmission } from './submission-server';
import { loadTlsMaterial } from './tls-material';

/**
 * The SMTP submission listener: config → container → certificate → STARTTLS on SUBMISSION_PORT and
 * implicit TLS on SUBMISSION_TLS_PORT → metrics on SUBMISSION_METRICS_PORT → signal handling (SIGTERM/SIGINT: stop accepting, let open
 * sessions end within a few seconds, close Redis and the database, exit). A port that cannot be
 * bound stops it at start with the variable to set.
 */
async function main() {
  const config = loadConfig();
  const deps = createContainer(config);
  logConfigWarnings(config, deps.logger);
  const tls = await loadTlsMaterial(config, deps.logger);
  const listeners: { server: SMTPServer; port: number; variable: string }[] = [
    { server: createSubmissionServer(deps, tls, false), port: config.submission.port, variable: 'SUBMISSION_PORT' },
    { server: createSubmissionServer(deps, tls, true), port: config.submission.tlsPort, variable: 'SUBMISSION_TLS_PORT' },
  ];
  const ports: number[] = [];
  for (const listener of listeners) {
    const { variable, port: wanted } = listener;
    const port = await listenOrExplain(deps.logger, { variable, port: wanted, host: config.host }, () => listenSubmission(listener.server, wanted, config.host));
    if (port === undefined) return void closeContainer(deps).finally(() => process.exit(1));
    ports.push(port);
  }
  const metrics = serveMetrics(deps.metrics.registry, { port: config.submission.metricsPort, host: config.host, operatorToken: config.operatorToken }, deps.logger);
  deps.logger.info('submission listening', {
    starttls_port: ports[0],
    tls_port: ports[1],
    self_signed_certificate: tls.selfSigned,
    sha256_fingerprint: tls.fingerprint256,
    ...(tls.certFile ? { cert_file: tls.certFile } : {}),
  });
  stopListenersOnSignal(deps.logger, 'submission', { servers: listeners.map((l) => l.server), metrics, close: () => closeContainer(deps) });
}

runService('submission', main, describeStartupFailure);
