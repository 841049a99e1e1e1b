import type { Server } from 'node:http';
import { closeContainer, type WorkerDependencies } from './container';
import type { Daemon } from './daemon';

/**
 * SIGTERM/SIGINT: stop taking jobs, let in-flight attempts finish within the grace period
 * (then release their leases), close the SMTP pool, Redis and the database, and exit.
 */
export function installShutdown(deps: WorkerDependencies, daemon: Daemon, metrics: Server): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('worker stopping', { signal });
    // Whatever hangs past the grace period and the close after it, the process still ends.
    setTimeout(() => process.exit(1), deps.config.worker.shutdownGraceMs + 15_000).unref();
    try {
      await daemon.stop();
      metrics.close();
      await closeContainer(deps);
      deps.logger.info('worker stopped');
      process.exitCode = 0;
    } catch (error) {
      deps.logger.error('worker stopped with an error', { error: (error as Error).message });
      process.exitCode = 1;
    }
    // Let the log lines drain, then leave even if a library keeps a handle open.
    setTimeout(() => process.exit(), 500).unref();
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
