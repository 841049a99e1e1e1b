/** Runs tasks at most `limit` at a time; the others wait their turn, first come first served. */
export interface ReadingLimit {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  running(): number;
  /** Tasks waiting for a turn. */
  waiting(): number;
}

/**
 * Bounds the reports parsed at once (INBOUND_REPORT_CONCURRENCY): parsing a message costs up
 * to about a second of CPU and some tens of MB, so sessions beyond the limit wait with their
 * message (already bounded by INBOUND_MAX_MESSAGE_BYTES) rather than parse it together.
 */
export function createReadingLimit(limit: number): ReadingLimit {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (running < limit) running++;
      // A finishing task hands its turn on without giving it up, so no newcomer takes it in between.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
    running: () => running,
    waiting: () => waiting.length,
  };
}
