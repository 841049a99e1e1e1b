import { isCancelable } from './cancel';

describe('isCancelable', () => {
  it('is true while every delivery waits without an attempt', () => {
    expect(isCancelable([{ status: 'queued', attemptCount: 0 }])).toBe(true);
    // A suppressed recipient (failed, never attempted) does not count as started.
    expect(isCancelable([{ status: 'queued', attemptCount: 0 }, { status: 'failed', attemptCount: 0 }])).toBe(true);
  });

  it('is false once a delivery is leased or has had an attempt, or nothing is left to cancel', () => {
    expect(isCancelable([{ status: 'queued', attemptCount: 0 }, { status: 'sending', attemptCount: 0 }])).toBe(false);
    expect(isCancelable([{ status: 'queued', attemptCount: 0 }, { status: 'deferred', attemptCount: 1 }])).toBe(false);
    expect(isCancelable([{ status: 'queued', attemptCount: 0 }, { status: 'accepted', attemptCount: 1 }])).toBe(false);
    expect(isCancelable([{ status: 'failed', attemptCount: 0 }])).toBe(false);
  });
});
