import { DatabaseStallError, withinStall } from './database-errors';

export interface BatcherOptions {
  maxBatch?: number;
  /**
   * A batch unanswered for this long fails its calls (withinStall) and the next batch goes
   * out, instead of every later call waiting behind it. Unbounded unless given.
   */
  stallMs?: number;
  /**
   * A batch goes out at least this long after the previous one went out: under load the
   * calls of that time go together. A batch costs its statements, round trips and commit
   * whatever its size, so a batch of 15 costs about what a batch of 4 does. A call that finds
   * the last batch older goes out at once, so light load waits for nothing. 0 unless given.
   */
  spacingMs?: number;
}

/**
 * Runs the database calls of concurrent jobs together: while one batch is in flight the
 * next calls wait and then go out in a single statement. Under load that turns many
 * statements, commits and turns on hot rows (an account's usage row, a sender row) into
 * one; a call that finds nothing in flight goes out at once. When a batch fails, its calls
 * are run one by one, so one bad call fails alone.
 */
export class Batcher<I, O> {
  private pending: { item: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];
  private busy = false;
  private lastSentAt = -Infinity;
  private spacing?: NodeJS.Timeout;

  private readonly maxBatch: number;
  private readonly stallMs?: number;
  private readonly spacingMs: number;

  /** `run` answers each item, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 200;
    this.stallMs = options.stallMs;
    this.spacingMs = options.spacingMs ?? 0;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.busy || this.spacing || this.pending.length === 0) return;
    const wait = this.lastSentAt + this.spacingMs - performance.now();
    if (wait > 0) {
      this.spacing = setTimeout(() => {
        this.spacing = undefined;
        void this.flush();
      }, wait);
      return;
    }
    this.busy = true;
    this.lastSentAt = performance.now();
    const batch = this.pending.splice(0, this.maxBatch);
    try {
      const outputs = await this.bounded(this.run(batch.map((p) => p.item)));
      batch.forEach((p, i) => p.resolve(outputs[i]!));
    } catch (error) {
      if (batch.length === 1 || error instanceof DatabaseStallError) for (const p of batch) p.reject(error);
      else for (const p of batch) await this.bounded(this.run([p.item])).then(([output]) => p.resolve(output!), p.reject);
    } finally {
      this.busy = false;
      void this.flush();
    }
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return this.stallMs === undefined ? work : withinStall(work, this.stallMs);
  }
}
