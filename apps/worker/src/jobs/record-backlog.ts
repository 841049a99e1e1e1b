/**
 * The attempt records a daemon has not stored yet, from the end of each attempt to its commit
 * (retries included). While the oldest is older than RECORD_BACKLOG_MS, the scheduler starts no
 * transaction (docs/api-decisions.md, "Delivery", the duplicate case): a message sent while its
 * outcome cannot be recorded is sent again if the daemon dies before the record goes through.
 */
export const RECORD_BACKLOG_MS = 1_000;

export class RecordBacklog {
  private readonly started = new Set<{ at: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Counts `work` as an unstored record until it settles. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    const entry = { at: this.now() };
    this.started.add(entry);
    try {
      return await work();
    } finally {
      this.started.delete(entry);
    }
  }

  /** Whether a record has waited longer than RECORD_BACKLOG_MS. */
  get behind(): boolean {
    const limit = this.now() - RECORD_BACKLOG_MS;
    for (const entry of this.started) if (entry.at < limit) return true;
    return false;
  }
}
