import { bounced, deferred, failed } from '../delivery/causes';
import { SUPPRESSED } from '../suppressions/suppression';
import { heldWhilePaused } from './held-while-paused';
import type { DeliveryCause } from '../delivery/causes';
import type { DeliveryStatus } from '../delivery/message-status';
import { observationEffects, transitionEffects, type TransitionReason } from '../delivery/transitions';
import { reputationHour, reputationWindowStart } from './reputation-counts';

/** What a move adds to its account's counts, as its reason's row says. */
const counted = (reason: TransitionReason, kind: 'to' | 'cc' | 'bcc', to: DeliveryStatus, cause: DeliveryCause | null) =>
  transitionEffects(reason, { kind }, to, cause).reputation;

const hard = bounced('recipient_unknown', 550, '5.1.1').cause;
const soft = bounced('message_rejected', 554, '5.7.1').cause;

describe('what a delivery change adds to its account reputation counts', () => {
  it('counts to/cc deliveries an attempt ended, the accepted ones and the hard bounces', () => {
    expect(counted('attempted', 'to', 'accepted', null)).toEqual({ terminal: 1, accepted: 1, hardBounces: 0, complaints: 0 });
    expect(counted('attempted', 'cc', 'bounced', hard)).toEqual({ terminal: 1, accepted: 0, hardBounces: 1, complaints: 0 });
    expect(counted('attempted', 'to', 'bounced', soft)).toEqual({ terminal: 1, accepted: 0, hardBounces: 0, complaints: 0 });
    expect(counted('attempted', 'to', 'failed', failed('sender_disabled').cause)).toEqual({
      terminal: 1,
      accepted: 0,
      hardBounces: 0,
      complaints: 0,
    });
  });

  it('counts nothing for deferrals, BCC deliveries, suppressed or canceled deliveries', () => {
    expect(counted('attempted', 'to', 'deferred', deferred('greylisted').cause)).toBeNull();
    expect(counted('attempted', 'bcc', 'bounced', hard)).toBeNull();
    expect(counted('suppressed', 'to', 'failed', SUPPRESSED)).toBeNull();
    expect(counted('canceled', 'to', 'failed', failed('canceled').cause)).toBeNull();
    expect(observationEffects('complained', { kind: 'bcc' }).reputation).toBeNull();
    expect(observationEffects('delayed', { kind: 'to' }).reputation).toBeNull();
  });

  it('adds a reported hard bounce without counting the delivery again, and each complaint', () => {
    expect(counted('bounce_reported', 'to', 'bounced', hard)).toEqual({ terminal: 0, accepted: 0, hardBounces: 1, complaints: 0 });
    expect(counted('bounce_reported', 'to', 'bounced', soft)).toBeNull();
    expect(observationEffects('complained', { kind: 'cc' }).reputation).toEqual({ terminal: 0, accepted: 0, hardBounces: 0, complaints: 1 });
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
