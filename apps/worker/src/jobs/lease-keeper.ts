import { attemptStopAt, leaseTiming, type LeaseTiming } from '@mailer/domain';
import { renewLeases, type Database, type HeldLease, type Lease } from '@mailer/db';
import type { Logger } from '@mailer/logger';
import type { Counter } from 'prom-client';

/** A lease the keeper renews until the attempt lets it go. */
export interface KeptLease {
  /**
   * Aborted when the lease could not be renewed in time: the attempt must stop now, before
   * another daemon may take its deliveries over (docs/api-decisions.md, "Delivery").
   */
  signal: AbortSignal;
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
}

interface Entry {
  held: HeldLease;
  controller: AbortController;
  stop?: NodeJS.Timeout;
}

/**
 * Renews the leases of every attempt in flight in this process, all in one statement every
 * third of DELIVERY_LEASE, while there is at least one. Each lease is confirmed until its
 * claim's expiry, then until the expiry of the latest renewal that succeeded; when that
 * comes within the stop margin (see leaseTiming) the attempt is aborted. A process that
 * dies stops renewing, and its leases run out within one DELIVERY_LEASE.
 */
export class LeaseKeeper {
  private readonly entries = new Map<string, Entry>();
  private readonly timing: LeaseTiming;
  private interval?: NodeJS.Timeout;
  private renewing = false;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.timing = leaseTiming(options.leaseMs);
  }

  keep(lease: Lease): KeptLease {
    const entry: Entry = { held: { token: lease.token, deliveryIds: lease.deliveries.map((d) => d.id) }, controller: new AbortController() };
    this.entries.set(lease.token, entry);
    this.confirm(entry, lease.expiresAt);
    if (!this.interval) {
      this.interval = setInterval(() => void this.renew(), this.timing.renewEveryMs);
      this.interval.unref();
    }
    return { signal: entry.controller.signal, release: () => this.letGo(lease.token) };
  }

  /** One renewal of every lease held (skipped while the previous one is still running). */
  async renew(): Promise<void> {
    // A lease whose attempt was stopped is not extended: it is released or recorded, or runs out.
    const entries = [...this.entries.values()].filter((e) => !e.controller.signal.aborted);
    if (this.renewing || entries.length === 0) return;
    this.renewing = true;
    const expiresAt = new Date(this.options.now().getTime() + this.options.leaseMs);
    try {
      await renewLeases(this.options.db, entries.map((e) => e.held), expiresAt, this.timing.lockWaitMs);
      this.options.renewals.inc({ result: 'renewed' });
      for (const entry of entries) if (this.entries.get(entry.held.token) === entry) this.confirm(entry, expiresAt);
    } catch (error) {
      this.options.renewals.inc({ result: 'failed' });
      this.options.logger.warn('leases not renewed', { error: (error as Error).message, leases: entries.length });
    } finally {
      this.renewing = false;
    }
  }

  /** The lease is held until `expiresAt`: the attempt may run until the stop margin before it. */
  private confirm(entry: Entry, expiresAt: Date): void {
    if (entry.controller.signal.aborted) return;
    clearTimeout(entry.stop);
    const delay = attemptStopAt(expiresAt, this.options.leaseMs).getTime() - this.options.now().getTime();
    entry.stop = setTimeout(() => {
      this.options.logger.warn('lease not renewed in time, attempt stopped', { deliveries: entry.held.deliveryIds.length });
      entry.controller.abort(new Error('lease not renewed in time'));
    }, Math.max(0, delay));
  }

  private letGo(token: string): void {
    const entry = this.entries.get(token);
    if (!entry) return;
    clearTimeout(entry.stop);
    this.entries.delete(token);
    if (this.entries.size === 0 && this.interval) {
      clearInterval(this.interval);
      this.interval = undefined;
    }
  }
}
