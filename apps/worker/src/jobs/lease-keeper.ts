import { setMaxListeners } from 'node:events';
import { attemptStopAt, leaseTiming, type LeaseTiming } from '@mailer/domain';
import { renewLeases, type Database, type HeldLease, type Lease } from '@mailer/operations';
import type { Logger } from '@mailer/logger';
import type { Counter } from 'prom-client';

/** A lease the keeper renews until the attempt lets it go. */
export interface KeptLease {
  /**
   * Aborted when the lease could not be renewed in time (the attempt must stop now, before
   * another daemon may take its deliveries over; docs/api-decisions.md, "Delivery") or when
   * the daemon's shutdown grace period is over. Made when first asked for: a held message
   * needs it only once its transaction starts.
   */
  readonly signal: AbortSignal;
  /** Why the attempt must stop (the signal's reason) once it must; undefined until then. */
  readonly stopped: Error | undefined;
  /** Stops renewing it: the attempt is over. Idempotent. */
  release(): void;
}

export interface LeaseKeeperOptions {
  db: Database;
  leaseMs: number;
  now: () => Date;
  logger: Logger;
  /** Renewal statements by result (`renewed`, `failed`). */
  renewals: Counter<'result'>;
  /** The daemon's shutdown: stops every lease kept. */
  shutdown?: AbortSignal;
}

/** A kept lease: its renewal state and, once asked for, its abort signal. */
class Entry implements KeptLease {
  stopped: Error | undefined;
  private controller?: AbortController;

  constructor(
    readonly held: HeldLease,
    /** Epoch ms at which the attempt must stop unless a renewal confirms the lease again. */
    public stopAt: number,
    private readonly letGo: (entry: Entry) => void,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // Each recipient domain's transaction listens to it (up to 50).
      setMaxListeners(0, this.controller.signal);
      if (this.stopped) this.controller.abort(this.stopped);
    }
    return this.controller.signal;
  }

  stop(reason: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.controller?.abort(reason);
  }

  release(): void {
    this.letGo(this);
  }
}

/**
 * Renews the leases of every attempt in flight in this process, all in one statement every
 * third of DELIVERY_LEASE, while there is at least one. Each lease is confirmed until its
 * claim's expiry, then until the expiry of the latest renewal that succeeded; when that
 * comes within the stop margin (see leaseTiming) the attempt is aborted. A process that
 * dies stops renewing, and its leases run out within one DELIVERY_LEASE.
 *
 * A daemon keeps up to WORKER_ACTIVE_LIMIT leases, each for as long as its message is held,
 * and whatever a held message owns is copied by the collector before it is old: one timer
 * watches every lease's stop time, and a lease gets its abort signal only when asked for one.
 */
export class LeaseKeeper {
  private readonly entries = new Map<string, Entry>();
  private readonly timing: LeaseTiming;
  private interval?: NodeJS.Timeout;
  private stopTimer?: NodeJS.Timeout;
  private stopTimerAt = Infinity;
  private renewing = false;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.timing = leaseTiming(options.leaseMs);
    const { shutdown } = options;
    shutdown?.addEventListener('abort', () => this.entries.forEach((entry) => entry.stop(shutdown.reason as Error)), { once: true });
  }

  keep(lease: Lease): KeptLease {
    const entry = new Entry({ token: lease.token, deliveryIds: lease.deliveries.map((d) => d.id) }, this.stopAtFor(lease.expiresAt), this.letGo);
    this.entries.set(lease.token, entry);
    if (this.options.shutdown?.aborted) entry.stop(this.options.shutdown.reason as Error);
    this.watch(entry.stopAt);
    if (!this.interval) {
      this.interval = setInterval(() => void this.renew(), this.timing.renewEveryMs);
      this.interval.unref();
    }
    return entry;
  }

  /** One renewal of every lease held (skipped while the previous one is still running). */
  async renew(): Promise<void> {
    // A lease whose attempt was stopped is not extended: it is released or recorded, or runs out.
    const entries = [...this.entries.values()].filter((e) => !e.stopped);
    if (this.renewing || entries.length === 0) return;
    this.renewing = true;
    const expiresAt = new Date(this.options.now().getTime() + this.options.leaseMs);
    try {
      await renewLeases(this.options.db, entries.map((e) => e.held), expiresAt, this.timing.lockWaitMs);
      this.options.renewals.inc({ result: 'renewed' });
      const stopAt = this.stopAtFor(expiresAt);
      for (const entry of entries) if (!entry.stopped) entry.stopAt = stopAt;
    } catch (error) {
      this.options.renewals.inc({ result: 'failed' });
      this.options.logger.warn('leases not renewed', { error: (error as Error).message, leases: entries.length });
    } finally {
      this.renewing = false;
    }
  }

  private stopAtFor(confirmedUntil: Date): number {
    return attemptStopAt(confirmedUntil, this.options.leaseMs).getTime();
  }

  /** The timer fires by `stopAt` at the latest (renewals only push stop times later). */
  private watch(stopAt: number): void {
    if (stopAt >= this.stopTimerAt) return;
    clearTimeout(this.stopTimer);
    this.stopTimerAt = stopAt;
    this.stopTimer = setTimeout(() => this.stopLapsed(), Math.max(0, stopAt - this.options.now().getTime()));
  }

  /** Stops the attempts whose lease was not confirmed in time, and watches for the next stop time. */
  private stopLapsed(): void {
    this.stopTimer = undefined;
    this.stopTimerAt = Infinity;
    const now = this.options.now().getTime();
    let next = Infinity;
    let lapsed = 0;
    for (const entry of this.entries.values()) {
      if (entry.stopped) continue;
      if (entry.stopAt <= now) {
        entry.stop(new Error('lease not renewed in time'));
        lapsed += entry.held.deliveryIds.length;
      } else next = Math.min(next, entry.stopAt);
    }
    if (lapsed > 0) this.options.logger.warn('lease not renewed in time, attempts stopped', { deliveries: lapsed });
    if (next < Infinity) this.watch(next);
  }

  private readonly letGo = (entry: Entry): void => {
    if (this.entries.get(entry.held.token) !== entry) return;
    this.entries.delete(entry.held.token);
    if (this.entries.size === 0) {
      clearInterval(this.interval);
      this.interval = undefined;
      clearTimeout(this.stopTimer);
      this.stopTimer = undefined;
      this.stopTimerAt = Infinity;
    }
  };
}
