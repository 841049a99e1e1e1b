import { isAllowedObservation, isAllowedTransition, observationEffects, transitionEffects } from './transitions';

describe('operator transitions', () => {
  it('holds and releases waiting deliveries without changing their status', () => {
    for (const reason of ['held_by_operator', 'released_by_operator'] as const) {
      expect(isAllowedTransition(reason, 'queued', 'queued')).toBe(true);
      expect(isAllowedTransition(reason, 'deferred', 'deferred')).toBe(true);
      expect(isAllowedTransition(reason, 'queued', 'deferred')).toBe(false);
      expect(isAllowedTransition(reason, 'sending', 'sending')).toBe(false);
    }
  });

  it('deletes or expires only waiting deliveries, ending them failed', () => {
    for (const reason of ['deleted_by_operator', 'expired_while_held'] as const) {
      expect(isAllowedTransition(reason, 'deferred', 'failed')).toBe(true);
      expect(isAllowedTransition(reason, 'queued', 'failed')).toBe(true);
      expect(isAllowedTransition(reason, 'sending', 'failed')).toBe(false);
      expect(isAllowedTransition(reason, 'accepted', 'failed')).toBe(false);
    }
  });

  it('keeps a hold or release silent, and reports a delete as any end', () => {
    expect(transitionEffects('held_by_operator', { kind: 'to' }, 'deferred', null)).toEqual({ event: null, webhook: null, attempt: false, suppression: null, hold: 'set', firstOwedAgain: false, reputation: null });
    expect(transitionEffects('released_by_operator', { kind: 'to' }, 'queued', null)).toEqual({ event: null, webhook: null, attempt: false, suppression: null, hold: 'clear', firstOwedAgain: false, reputation: null });
    const cause = { code: 'canceled_by_operator' as const, permanent: true, smtp_code: null, enhanced_status: null };
    expect(transitionEffects('deleted_by_operator', { kind: 'to' }, 'failed', cause)).toEqual({
      event: 'failed',
      webhook: 'email.failed',
      attempt: false,
      suppression: null,
      hold: 'clear',
      firstOwedAgain: false,
      reputation: null,
    });
  });

  it('keeps the hold through the moves that do not end a delivery', () => {
    expect(transitionEffects('made_due', { kind: 'to' }, 'deferred', null).hold).toBe('keep');
  });
});

describe('a reschedule', () => {
  it('moves only a queued delivery, keeping its status', () => {
    expect(isAllowedTransition('rescheduled', 'queued', 'queued')).toBe(true);
    expect(isAllowedTransition('rescheduled', 'deferred', 'deferred')).toBe(false);
    expect(isAllowedTransition('rescheduled', 'sending', 'sending')).toBe(false);
    expect(isAllowedTransition('rescheduled', 'queued', 'failed')).toBe(false);
  });

  it('is silent, keeps a hold, and makes the delivery first owed at its new time', () => {
    expect(transitionEffects('rescheduled', { kind: 'to' }, 'queued', null)).toEqual({
      event: null,
      webhook: null,
      attempt: false,
      suppression: null,
      hold: 'keep',
      firstOwedAgain: true,
      reputation: null,
    });
  });
});

describe('observations', () => {
  const accepted = { status: 'accepted' as const, delayReportedAt: null, complainedAt: null, unsubscribedAt: null, openedAt: null, clickedAt: null };

  it('apply once each, in the statuses their rows name', () => {
    expect(isAllowedObservation('delayed', accepted)).toBe(true);
    expect(isAllowedObservation('delayed', { ...accepted, status: 'bounced' })).toBe(false);
    expect(isAllowedObservation('complained', { ...accepted, status: 'bounced' })).toBe(true);
    expect(isAllowedObservation('complained', { ...accepted, complainedAt: new Date() })).toBe(false);
    expect(isAllowedObservation('complained', { ...accepted, status: 'deferred' })).toBe(false);
    expect(isAllowedObservation('unsubscribed', accepted)).toBe(true);
    expect(isAllowedObservation('unsubscribed', { ...accepted, status: 'bounced' })).toBe(true);
    expect(isAllowedObservation('unsubscribed', { ...accepted, complainedAt: new Date() })).toBe(true);
    expect(isAllowedObservation('unsubscribed', { ...accepted, unsubscribedAt: new Date() })).toBe(false);
    expect(isAllowedObservation('unsubscribed', { ...accepted, status: 'failed' })).toBe(false);
    // Opens and clicks repeat: each is told, the first stamped.
    for (const observation of ['opened', 'clicked'] as const) {
      expect(isAllowedObservation(observation, accepted)).toBe(true);
      expect(isAllowedObservation(observation, { ...accepted, status: 'bounced' })).toBe(true);
      expect(isAllowedObservation(observation, { ...accepted, openedAt: new Date(), clickedAt: new Date() })).toBe(true);
      expect(isAllowedObservation(observation, { ...accepted, status: 'sending' })).toBe(false);
      expect(isAllowedObservation(observation, { ...accepted, status: 'failed' })).toBe(false);
    }
  });

  it('stamp their field and bring their effects, never a suppression of a BCC recipient', () => {
    expect(observationEffects('delayed', { kind: 'to' })).toEqual({ event: 'delayed', stamp: 'delayReportedAt', webhook: null, suppression: null, reputation: null });
    expect(observationEffects('complained', { kind: 'cc' })).toEqual({
      event: 'complained',
      stamp: 'complainedAt',
      webhook: 'email.complained',
      suppression: 'complaint',
      reputation: { terminal: 0, accepted: 0, hardBounces: 0, complaints: 1 },
    });
    expect(observationEffects('complained', { kind: 'bcc' })).toMatchObject({ suppression: null, reputation: null });
    expect(observationEffects('unsubscribed', { kind: 'to' })).toEqual({
      event: 'unsubscribed',
      stamp: 'unsubscribedAt',
      webhook: 'email.unsubscribed',
      suppression: 'unsubscribed',
      reputation: null,
    });
    expect(observationEffects('unsubscribed', { kind: 'bcc' })).toMatchObject({ suppression: null });
    expect(observationEffects('opened', { kind: 'to' })).toEqual({ event: 'opened', stamp: 'openedAt', webhook: 'email.opened', suppression: null, reputation: null });
    expect(observationEffects('clicked', { kind: 'cc' })).toEqual({ event: 'clicked', stamp: 'clickedAt', webhook: 'email.clicked', suppression: null, reputation: null });
  });
});

describe('the effects of an end', () => {
  const hard = { code: 'recipient_unknown' as const, permanent: true, smtp_code: 550, enhanced_status: '5.1.1' };

  it('suppress a hard-bounced to/cc recipient only for the reasons whose rows say so', () => {
    expect(transitionEffects('attempted', { kind: 'to' }, 'bounced', hard).suppression).toBe('hard_bounce');
    expect(transitionEffects('bounce_reported', { kind: 'cc' }, 'bounced', hard).suppression).toBe('hard_bounce');
    expect(transitionEffects('attempted', { kind: 'bcc' }, 'bounced', hard).suppression).toBeNull();
  });

  it('clear a hold whatever the reason', () => {
    expect(transitionEffects('attempted', { kind: 'to' }, 'accepted', null).hold).toBe('clear');
    expect(transitionEffects('expired_while_held', { kind: 'to' }, 'failed', null).hold).toBe('clear');
    expect(transitionEffects('attempted', { kind: 'to' }, 'deferred', null).hold).toBe('keep');
  });
});
