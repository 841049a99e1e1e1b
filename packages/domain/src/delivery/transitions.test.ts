import { isAllowedTransition, transitionEffects } from './transitions';

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
    expect(transitionEffects('held_by_operator', { kind: 'to' }, 'deferred', null)).toEqual({ event: null, webhook: null, attempt: false, suppression: null, hold: 'set', firstOwedAgain: false });
    expect(transitionEffects('released_by_operator', { kind: 'to' }, 'queued', null)).toEqual({ event: null, webhook: null, attempt: false, suppression: null, hold: 'clear', firstOwedAgain: false });
    const cause = { code: 'canceled_by_operator' as const, permanent: true, smtp_code: null, enhanced_status: null };
    expect(transitionEffects('deleted_by_operator', { kind: 'to' }, 'failed', cause)).toEqual({
      event: 'failed',
      webhook: 'email.failed',
      attempt: false,
      suppression: null,
      hold: 'clear',
      firstOwedAgain: false,
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
    });
  });
});
