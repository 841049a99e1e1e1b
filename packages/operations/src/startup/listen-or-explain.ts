import type { Logger } from '@mailer/logger';

/** A port a process listens on, and the variable that sets it. */
export interface Listener {
  variable: string;
  port: number;
  host: string;
}

function hint({ variable, port, host }: Listener, code: string | undefined): string {
  if (code === 'EACCES') return `port ${port} is privileged: set ${variable} to a port above 1023, or give node the cap_net_bind_service capability`;
  if (code === 'EADDRINUSE') return `port ${port} is in use on ${host}: set ${variable} to a free port, or stop what holds it`;
  return `set ${variable} (and HOST) to an address and port this machine can listen on`;
}

/**
 * Runs `listen`; when the port cannot be bound, logs one error line naming the variable to set
 * (docs/api-decisions.md, "First run") and answers undefined, for the caller to exit.
 */
export async function listenOrExplain<T>(logger: Logger, listener: Listener, listen: () => Promise<T>): Promise<T | undefined> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    logger.error(`cannot listen: ${hint(listener, code)}`, { variable: listener.variable, port: listener.port, host: listener.host, code });
    return undefined;
  }
}
