import type { Server } from 'node:http';
import type { Logger } from '@mailer/logger';

/** What a listener process holds open: its SMTP servers, its metrics server and the rest (Redis, the database). */
export interface ListenerResources {
  servers: { close(callback: () => void): void }[];
  metrics: Server;
  close(): Promise<void>;
}

/**
 * SIGTERM or SIGINT stops an SMTP listener (inbound, submission) gracefully: no new
 * connections, open sessions end within a few seconds, then its connections close and it
 * exits 0; anything still open after 15 s, or a failure to close, exits 1
 * (docs/api-decisions.md, "Operations").
 */
export function stopListenersOnSignal(logger: Logger, service: string, resources: ListenerResources): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${service} stopping`, { signal });
    setTimeout(() => process.exit(1), 15_000).unref();
    resources.metrics.close();
    Promise.all(resources.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
      .then(() => resources.close())
      .then(
        () => {
          logger.info(`${service} stopped`);
          setTimeout(() => process.exit(0), 200).unref();
        },
        () => process.exit(1),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
