/**
 * At most `limit` holders per key, waiters served first come, first served. The daemon
 * keeps two: SMTP transactions per destination (an MX host), so that a receiving server
 * sees a bounded number of connections from us whatever the worker concurrency; and
 * messages in flight (WORKER_CONCURRENCY), however many a job carries.
 */
export class SlotLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Resolves with the release function once a slot is free; rejects when `signal` aborts first. */
  acquire(key: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const release = this.releaser(key);
    if ((this.active.get(key) ?? 0) < this.limit) {
      this.active.set(key, (this.active.get(key) ?? 0) + 1);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = () => {
        const index = queue.indexOf(grant);
        if (index >= 0) queue.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
      this.waiting.set(key, queue);
    });
  }

  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(key)?.shift();
      // The slot passes straight to the next waiter, so the count stays.
      if (next) return next();
      if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
      const count = (this.active.get(key) ?? 1) - 1;
      if (count <= 0) this.active.delete(key);
      else this.active.set(key, count);
    };
  }
}
