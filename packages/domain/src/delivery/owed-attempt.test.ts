import { isOwedAttempt } from './owed-attempt';

const now = new Date('2026-11-23T12:00:00.000Z');
const before = new Date(now.getTime() - 1);
const after = new Date(now.getTime() + 1);

describe('isOwedAttempt', () => {
  it('owes waiting deliveries once due', () => {
    expect(isOwedAttempt({ status: 'queued', nextAttemptAt: now, leaseExpiresAt: null, heldAt: null }, now, true)).toBe(true);
    expect(isOwedAttempt({ status: 'deferred', nextAttemptAt: after, leaseExpiresAt: null, heldAt: null }, now, true)).toBe(false);
  });

  it('owes every waiting delivery of a sender that is gone, due or not', () => {
    expect(isOwedAttempt({ status: 'deferred', nextAttemptAt: after, leaseExpiresAt: null, heldAt: null }, now, false)).toBe(true);
  });

  it('owes a sending delivery only once its lease expired', () => {
    expect(isOwedAttempt({ status: 'sending', nextAttemptAt: before, leaseExpiresAt: after, heldAt: null }, now, true)).toBe(false);
    expect(isOwedAttempt({ status: 'sending', nextAttemptAt: before, leaseExpiresAt: now, heldAt: null }, now, true)).toBe(true);
  });

  it('never owes a terminal delivery', () => {
    for (const status of ['accepted', 'bounced', 'failed'] as const) {
      expect(isOwedAttempt({ status, nextAttemptAt: before, leaseExpiresAt: before, heldAt: null }, now, false)).toBe(false);
    }
  });

  it('never owes a held delivery, due or not, whatever its sender', () => {
    expect(isOwedAttempt({ status: 'queued', nextAttemptAt: before, leaseExpiresAt: null, heldAt: before }, now, true)).toBe(false);
    expect(isOwedAttempt({ status: 'deferred', nextAttemptAt: before, leaseExpiresAt: null, heldAt: before }, now, false)).toBe(false);
  });
});
