/**
 * Failures that mean PostgreSQL cannot be reached or is going away (the service is
 * unavailable, not broken): connection classes 08, shutdown 57P01-57P03, too many
 * connections 53300, and the driver's own connection errors.
 */
const DRIVER_CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/** A statement left unanswered past a bound (see Batcher): treated as the database being unavailable. */
export class DatabaseStallError extends Error {
  override readonly name = 'DatabaseStallError';

  constructor(readonly afterMs: number) {
    super(`no answer from the database within ${afterMs} ms`);
  }
}

/**
 * `work`, or a DatabaseStallError once it has gone unanswered for `stallMs`: after a
 * PostgreSQL crash the driver can leave a statement unanswered for good (docs/api-decisions.md,
 * "Data layer"), which would hold its caller forever. A failure after the stall belongs to no one.
 */
export function withinStall<T>(work: Promise<T>, stallMs: number): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseStallError(stallMs)), stallMs);
  });
  return Promise.race([work, stalled]).finally(() => clearTimeout(timer));
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseStallError) return true;
  const e = error as { code?: unknown; cause?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.cause && isDatabaseUnavailable(e.cause)) return true;
  if (typeof e.code !== 'string') return false;
  return /^(08|57P0[1-3]|53300)/.test(e.code) || DRIVER_CONNECTION_ERRORS.has(e.code);
}
