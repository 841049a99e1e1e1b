import { expiredWhileHeldCause, isHeldPastMaxAge, isWaiting, queueActionApplies } from './hold';

const created = new Date('2026-11-20T00:00:00.000Z');
const maxAge = 72 * 3600_000;
const atAge = new Date(created.getTime() + maxAge);
const justBefore = new Date(atAge.getTime() - 1);

describe('queue holds', () => {
  it('acts on waiting deliveries only', () => {
    expect(['queued', 'deferred'].every((s) => isWaiting(s as 'queued'))).toBe(true);
    expect(['sending', 'accepted', 'bounced', 'failed'].some((s) => isWaiting(s as 'queued'))).toBe(false);
  });

  it('expires a held delivery at its maximum age, attempted or not', () => {
    expect(isHeldPastMaxAge({ status: 'queued', heldAt: created, createdAt: created }, atAge, maxAge)).toBe(true);
    expect(isHeldPastMaxAge({ status: 'deferred', heldAt: created, createdAt: created }, justBefore, maxAge)).toBe(false);
  });

  it('leaves deliveries that are not held, or no longer waiting, to their own course', () => {
    expect(isHeldPastMaxAge({ status: 'deferred', heldAt: null, createdAt: created }, atAge, maxAge)).toBe(false);
    expect(isHeldPastMaxAge({ status: 'failed', heldAt: created, createdAt: created }, atAge, maxAge)).toBe(false);
  });

  it('ends an expired hold with retries_exhausted, keeping the last reply codes', () => {
    expect(expiredWhileHeldCause({ code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' })).toEqual({
      code: 'retries_exhausted',
      permanent: true,
      smtp_code: 451,
      enhanced_status: '4.7.1',
    });
    expect(expiredWhileHeldCause(null)).toEqual({ code: 'retries_exhausted', permanent: true, smtp_code: null, enhanced_status: null });
  });
});

describe('queueActionApplies', () => {
  const at = new Date();
  it('holds waiting deliveries not held, and releases held ones', () => {
    expect(queueActionApplies('hold', { status: 'deferred', heldAt: null })).toBe(true);
    expect(queueActionApplies('hold', { status: 'queued', heldAt: at })).toBe(false);
    expect(queueActionApplies('hold', { status: 'sending', heldAt: null })).toBe(false);
    expect(queueActionApplies('release', { status: 'queued', heldAt: at })).toBe(true);
    expect(queueActionApplies('release', { status: 'queued', heldAt: null })).toBe(false);
  });

  it('deletes any waiting delivery, held or not, and never one in flight or ended', () => {
    expect(queueActionApplies('delete', { status: 'deferred', heldAt: at })).toBe(true);
    expect(queueActionApplies('delete', { status: 'queued', heldAt: null })).toBe(true);
    expect(queueActionApplies('delete', { status: 'sending', heldAt: null })).toBe(false);
    expect(queueActionApplies('delete', { status: 'accepted', heldAt: null })).toBe(false);
  });

  it('flushes deferred deliveries that are not held', () => {
    expect(queueActionApplies('flush', { status: 'deferred', heldAt: null })).toBe(true);
    expect(queueActionApplies('flush', { status: 'deferred', heldAt: at })).toBe(false);
    expect(queueActionApplies('flush', { status: 'queued', heldAt: null })).toBe(false);
  });
});
