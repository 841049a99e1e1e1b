import { claimOwed, releaseLeased } from './leases';
import { delivery, message } from '../../testing/locked-messages';

const now = new Date('2026-12-01T12:00:00Z');
const lease = { token: 'lease-1', expiresAt: new Date('2026-12-01T12:05:00Z') };
const deferredCause = { code: 'greylisted' as const, permanent: false, smtp_code: 451, enhanced_status: '4.7.1' };

describe('a claim', () => {
  it('leases the owed deliveries in their place in the message, keeping the cause of the last deferral', () => {
    const m = message([
      delivery('dlv_b', { position: 1, status: 'deferred', attemptCount: 1, cause: deferredCause }),
      delivery('dlv_a', { position: 0 }),
      delivery('dlv_c', { position: 2, status: 'deferred', nextAttemptAt: new Date('2026-12-01T13:00:00Z') }),
      delivery('dlv_d', { position: 3, status: 'accepted' }),
    ]);
    const claimed = claimOwed(m, lease, true, now);
    expect(claimed.answer.map((d) => d.id)).toEqual(['dlv_a', 'dlv_b']);
    expect(claimed.transitions).toEqual([
      { reason: 'claimed', delivery: 'dlv_a', to: 'sending', cause: null, at: now, lease },
      { reason: 'claimed', delivery: 'dlv_b', to: 'sending', cause: deferredCause, at: now, lease },
    ]);
  });

  it('takes over a lease that expired, and leaves one still held', () => {
    const lapsed = delivery('dlv_a', { status: 'sending', leaseToken: 'old', leaseExpiresAt: new Date('2026-12-01T11:59:00Z') });
    const held = delivery('dlv_b', { status: 'sending', leaseToken: 'other', leaseExpiresAt: new Date('2026-12-01T12:01:00Z') });
    expect(claimOwed(message([lapsed, held]), lease, true, now).answer.map((d) => d.id)).toEqual(['dlv_a']);
  });

  it('leases nothing held by an operator', () => {
    expect(claimOwed(message([delivery('dlv_a', { heldAt: now })]), lease, true, now).transitions).toEqual([]);
  });
});

describe('a release', () => {
  const leased = (id: string, fields = {}) => delivery(id, { status: 'sending', leaseToken: 'lease-1', ...fields });

  it('gives back only the named deliveries still under the lease: deferred after an attempt, else queued', () => {
    const m = message([leased('dlv_a'), leased('dlv_b', { attemptCount: 2, cause: deferredCause }), leased('dlv_c', { leaseToken: 'other' }), leased('dlv_d')]);
    const dueAt = new Date('2026-12-02T00:00:00Z');
    const released = releaseLeased(m, 'lease-1', ['dlv_a', 'dlv_b', 'dlv_c'], { reason: 'postponed', dueAt }, now);
    expect(released.answer).toBe(2);
    expect(released.transitions).toEqual([
      { reason: 'postponed', delivery: 'dlv_a', to: 'queued', cause: null, at: now, nextAttemptAt: dueAt },
      { reason: 'postponed', delivery: 'dlv_b', to: 'deferred', cause: deferredCause, at: now, nextAttemptAt: dueAt },
    ]);
  });

  it('leaves a delivery recorded meanwhile alone', () => {
    expect(releaseLeased(message([delivery('dlv_a', { status: 'accepted', leaseToken: 'lease-1' })]), 'lease-1', ['dlv_a'], { reason: 'released', dueAt: now }, now).answer).toBe(0);
  });
});
