import { afterTransaction, initialDestinationState, isSuspended, liftSuspension, type DestinationTuning } from './destination-feedback';

const tuning: DestinationTuning = { initial: 5, max: 8, suspendAfterFailures: 3, suspendMs: 60_000 };

describe('liftSuspension', () => {
  it('ends a suspension at once, from concurrency 1 with the failure streak forgotten', () => {
    const suspended = (['connection_failed', 'connection_failed', 'connection_failed'] as const).reduce(
      (state, f) => afterTransaction(state, f, tuning, 1_000),
      initialDestinationState(tuning),
    );
    expect(isSuspended(suspended, 2_000)).toBe(true);
    const lifted = liftSuspension(suspended);
    expect(isSuspended(lifted, 2_000)).toBe(false);
    expect(lifted).toEqual({ concurrency: 1, successes: 0, consecutiveFailures: 0, suspendedUntil: null });
    // A failure right after the lift halves, as a first failure would; it takes the whole streak again to suspend.
    expect(isSuspended(afterTransaction(lifted, 'connection_failed', tuning, 2_000), 2_000)).toBe(false);
  });
});
