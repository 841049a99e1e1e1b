import { DatabaseStallError, withinStall } from './database-errors';

export interface BatcherOptions {
  maxBatch?: number;
  /**
   * A batch unanswered for this long fails its calls (withinStall) and the next batch goes
   * out, instead of every later call waiting behind it. Unbounded unless given.
   */
  stallMs?: number;
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

  private readonly maxBatch: number;
  private readonly stallMs?: number;

  /** `run` answers each item, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 200;
    this.stallMs = options.stallMs;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.busy || this.pending.length === 0) return;
    this.busy = true;
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
