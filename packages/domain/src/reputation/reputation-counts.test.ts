import { bounced, deferred, failed } from '../delivery/causes';
import { SUPPRESSED } from '../suppressions/suppression';
import { heldWhilePaused } from './held-while-paused';
import { reputationCountOf, reputationHour, reputationWindowStart } from './reputation-counts';

const hard = bounced('recipient_unknown', 550, '5.1.1').cause;
const soft = bounced('message_rejected', 554, '5.7.1').cause;

describe('what a delivery change adds to its account reputation counts', () => {
  it('counts to/cc deliveries an attempt ended, the accepted ones and the hard bounces', () => {
    expect(reputationCountOf({ reason: 'attempted', kind: 'to', to: 'accepted', cause: null })).toEqual({ terminal: 1, accepted: 1, hardBounces: 0, complaints: 0 });
    expect(reputationCountOf({ reason: 'attempted', kind: 'cc', to: 'bounced', cause: hard })).toEqual({ terminal: 1, accepted: 0, hardBounces: 1, complaints: 0 });
    expect(reputationCountOf({ reason: 'attempted', kind: 'to', to: 'bounced', cause: soft })).toEqual({ terminal: 1, accepted: 0, hardBounces: 0, complaints: 0 });
    expect(reputationCountOf({ reason: 'attempted', kind: 'to', to: 'failed', cause: failed('sender_disabled').cause })).toEqual({
      terminal: 1,
      accepted: 0,
      hardBounces: 0,
      complaints: 0,
    });
  });

  it('counts nothing for deferrals, BCC deliveries, suppressed or canceled deliveries', () => {
    expect(reputationCountOf({ reason: 'attempted', kind: 'to', to: 'deferred', cause: deferred('greylisted').cause })).toBeUndefined();
    expect(reputationCountOf({ reason: 'attempted', kind: 'bcc', to: 'bounced', cause: hard })).toBeUndefined();
    expect(reputationCountOf({ reason: 'suppressed', kind: 'to', to: 'failed', cause: SUPPRESSED })).toBeUndefined();
    expect(reputationCountOf({ reason: 'canceled', kind: 'to', to: 'failed', cause: failed('canceled').cause })).toBeUndefined();
    expect(reputationCountOf({ observation: 'complained', kind: 'bcc' })).toBeUndefined();
    expect(reputationCountOf({ observation: 'delayed', kind: 'to' })).toBeUndefined();
  });

  it('adds a reported hard bounce without counting the delivery again, and each complaint', () => {
    expect(reputationCountOf({ reason: 'bounce_reported', kind: 'to', to: 'bounced', cause: hard })).toEqual({ terminal: 0, accepted: 0, hardBounces: 1, complaints: 0 });
    expect(reputationCountOf({ reason: 'bounce_reported', kind: 'to', to: 'bounced', cause: soft })).toBeUndefined();
    expect(reputationCountOf({ observation: 'complained', kind: 'cc' })).toEqual({ terminal: 0, accepted: 0, hardBounces: 0, complaints: 1 });
  });

  it('keeps counts by UTC hour, the window being the current hour and the 23 before it', () => {
    const now = new Date('2026-11-27T14:35:10.123Z');
    expect(reputationHour(now)).toEqual(new Date('2026-11-27T14:00:00.000Z'));
    expect(reputationWindowStart(now)).toEqual(new Date('2026-11-26T15:00:00.000Z'));
  });
});

describe('a paused account owed delivery', () => {
  const createdAt = new Date('2026-11-27T00:00:00Z');
  const maxAge = 72 * 3_600_000;
  it('waits until its maximum age, then expires', () => {
    expect(heldWhilePaused({ createdAt }, new Date('2026-11-28T00:00:00Z'), maxAge)).toEqual({ kind: 'hold', until: new Date('2026-11-30T00:00:00Z') });
    expect(heldWhilePaused({ createdAt }, new Date('2026-11-30T00:00:00Z'), maxAge)).toEqual({ kind: 'expire' });
  });
});
