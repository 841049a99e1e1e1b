import { attemptStopAt, leaseTiming } from './lease-timing';

describe('leaseTiming', () => {
  it('renews every third of the lease and stops attempts a sixth before the confirmed expiry', () => {
    expect(leaseTiming(30_000)).toEqual({ renewEveryMs: 10_000, lockWaitMs: 2_500, stopBeforeExpiryMs: 5_000 });
  });

  it('survives two failed renewals in a row, never a third', () => {
    for (const leaseMs of [3_000, 30_000, 45_000, 600_000]) {
      const { renewEveryMs, stopBeforeExpiryMs } = leaseTiming(leaseMs);
      const confirmedAt = 0;
      const stop = attemptStopAt(new Date(confirmedAt + leaseMs), leaseMs).getTime();
      expect(stop).toBeGreaterThan(confirmedAt + 2 * renewEveryMs);
      expect(stop).toBeLessThan(confirmedAt + 3 * renewEveryMs);
      expect(stopBeforeExpiryMs).toBeGreaterThan(0);
    }
  });

  it('waits for row locks well within one renewal period', () => {
    const { renewEveryMs, lockWaitMs } = leaseTiming(30_000);
    expect(lockWaitMs).toBeLessThan(renewEveryMs / 2);
  });
});

describe('attemptStopAt', () => {
  it('is the confirmed expiry less the margin', () => {
    expect(attemptStopAt(new Date('2026-11-23T12:00:30.000Z'), 30_000)).toEqual(new Date('2026-11-23T12:00:25.000Z'));
  });
});
