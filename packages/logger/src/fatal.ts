import { createLogger } from './logger';

/** What a fatal line says of the error: its message, and whatever else the service knows of it (a stack, a list of problems). */
export type FailureFields = (error: unknown) => Record<string, unknown>;

/**
 * Runs a service's `main` so that its output is JSON lines from the first to the last (docs/guide.md,
 * "Logs (operators)"): a failure to start (a configuration problem included) and an exception nothing caught
 * are written as one `error` line through the logger (`failed`, or what happened), with `describe`'s fields, and the process
 * exits with status 1 once the line is out.
 */
export function runService(service: string, main: () => Promise<void>, describe: FailureFields, failed = 'start-up failed'): void {
  let ending = false;
  const fatal = (message: string) => (error: unknown) => {
    if (ending) return;
    ending = true;
    process.exitCode = 1;
    // Before the configuration is read there is no LOG_LEVEL: a fatal line is written at any level.
    const logger = createLogger({ level: 'error', service });
    logger.on('finish', () => process.exit(1));
    logger.error(message, describe(error));
    logger.end();
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
  main().catch(fatal(failed));
}
