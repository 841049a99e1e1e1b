/**
 * At most `limit` concurrent SMTP transactions per destination (an MX host), whatever the
 * worker concurrency: a receiving server sees a bounded number of connections from us.
 * Waiters are served first come, first served.
 */
export class DestinationLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Resolves with the release function once a slot is free; rejects when `signal` aborts first. */
  acquire(destination: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const release = this.releaser(destination);
    if ((this.active.get(destination) ?? 0) < this.limit) {
      this.active.set(destination, (this.active.get(destination) ?? 0) + 1);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(destination) ?? [];
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
      this.waiting.set(destination, queue);
    });
  }

  private releaser(destination: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(destination)?.shift();
      // The slot passes straight to the next waiter, so the count stays.
      if (next) return next();
      if (this.waiting.get(destination)?.length === 0) this.waiting.delete(destination);
      const count = (this.active.get(destination) ?? 1) - 1;
      if (count <= 0) this.active.delete(destination);
      else this.active.set(destination, count);
    };
  }
}
