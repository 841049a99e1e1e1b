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

  /** `run` answers each item, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 200,
  ) {}

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
      const outputs = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(outputs[i]!));
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const p of batch) await this.run([p.item]).then(([output]) => p.resolve(output!), p.reject);
    } finally {
      this.busy = false;
      void this.flush();
    }
  }
}
