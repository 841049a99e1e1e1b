import { counterDeltas, counterDeltasByKey, NO_CHANGE } from './delivery-counters';

describe('counterDeltas', () => {
  it('counts created deliveries as active, and a terminal creation (suppressed) in its end state only', () => {
    expect(counterDeltas([{ from: null, to: 'queued' }, { from: null, to: 'queued' }])).toEqual({ ...NO_CHANGE, active: 2 });
    expect(counterDeltas([{ from: null, to: 'failed' }])).toEqual({ ...NO_CHANGE, failed: 1 });
  });

  it('moves nothing while a delivery stays active, except the current deferrals', () => {
    expect(counterDeltas([{ from: 'queued', to: 'sending' }, { from: 'sending', to: 'queued' }])).toEqual(NO_CHANGE);
    expect(counterDeltas([{ from: 'deferred', to: 'sending' }])).toEqual({ ...NO_CHANGE, deferred: -1 });
    expect(counterDeltas([{ from: 'sending', to: 'deferred' }])).toEqual({ ...NO_CHANGE, deferred: 1 });
  });

  it('takes a delivery out of the active count once, when it ends', () => {
    expect(
      counterDeltas([
        { from: 'sending', to: 'accepted' },
        { from: 'sending', to: 'bounced' },
        { from: 'deferred', to: 'failed' },
      ]),
    ).toEqual({ active: -3, accepted: 1, bounced: 1, failed: 1, deferred: -1 });
  });

  it('moves an accepted delivery a later DSN bounces from accepted to bounced', () => {
    expect(counterDeltas([{ from: 'accepted', to: 'bounced' }])).toEqual({ ...NO_CHANGE, accepted: -1, bounced: 1 });
  });

  it('ignores a transition to the same status', () => {
    expect(counterDeltas([{ from: 'deferred', to: 'deferred' }])).toEqual(NO_CHANGE);
  });

  it('sums per key', () => {
    const byKey = counterDeltasByKey([
      { key: 'a', from: null, to: 'queued' },
      { key: 'b', from: 'sending', to: 'failed' },
      { key: 'a', from: null, to: 'queued' },
    ]);
    expect(byKey.get('a')).toEqual({ ...NO_CHANGE, active: 2 });
    expect(byKey.get('b')).toEqual({ ...NO_CHANGE, active: -1, failed: 1 });
  });
});
