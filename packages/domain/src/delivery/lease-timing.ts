/**
 * How a daemon keeps the leases of the deliveries it is attempting (docs/api-decisions.md,
 * "Delivery"). Every lease it holds is renewed in one statement each `renewEveryMs` (a
 * third of the lease, so two renewals in a row may fail without consequence); that
 * statement waits at most `lockWaitMs` for rows another transaction holds. An attempt whose
 * lease has not been confirmed again stops `stopBeforeExpiryMs` before the last expiry it
 * confirmed, so that it is over before another daemon may take its deliveries: the margin
 * absorbs a late timer on a busy event loop and clock differences between daemons.
 */
export interface LeaseTiming {
  renewEveryMs: number;
  lockWaitMs: number;
  stopBeforeExpiryMs: number;
}

export function leaseTiming(leaseMs: number): LeaseTiming {
  const renewEveryMs = leaseMs / 3;
  return { renewEveryMs, lockWaitMs: renewEveryMs / 4, stopBeforeExpiryMs: leaseMs / 6 };
}

/** When an attempt must stop whose lease is confirmed (claimed or last renewed) until `confirmedUntil`. */
export function attemptStopAt(confirmedUntil: Date, leaseMs: number): Date {
  return new Date(confirmedUntil.getTime() - leaseTiming(leaseMs).stopBeforeExpiryMs);
}
