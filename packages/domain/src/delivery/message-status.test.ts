import fc from 'fast-check';
import { deriveMessageCause, deriveMessageStatus, isTerminal, type DeliveryStatus } from './message-status';

const ALL: DeliveryStatus[] = ['queued', 'sending', 'deferred', 'accepted', 'bounced', 'failed'];

describe('deriveMessageStatus', () => {
  it.each<[DeliveryStatus[], DeliveryStatus]>([
    [['queued'], 'queued'],
    [['queued', 'accepted'], 'queued'],
    [['deferred', 'queued', 'accepted'], 'deferred'],
    [['deferred', 'sending', 'failed'], 'sending'],
    [['accepted', 'accepted'], 'accepted'],
    [['accepted', 'bounced'], 'bounced'],
    [['bounced', 'failed', 'accepted'], 'failed'],
  ])('%j → %s', (statuses, expected) => {
    expect(deriveMessageStatus(statuses)).toBe(expected);
  });

  it('is terminal exactly when every delivery is, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALL), { minLength: 1, maxLength: 50 }), (statuses) => {
        const status = deriveMessageStatus(statuses);
        expect(isTerminal(status)).toBe(statuses.every(isTerminal));
        expect(deriveMessageStatus([...statuses].reverse())).toBe(status);
        expect(statuses).toContain(status);
      }),
    );
  });
});

describe('deriveMessageCause', () => {
  const cause = (code: 'greylisted' | 'recipient_unknown' | 'mailbox_full') => ({ code, permanent: false, smtp_code: 450, enhanced_status: null });

  it('is the latest cause among deliveries in the message status, none while queued, sending or accepted', () => {
    const deliveries = [
      { status: 'deferred' as const, cause: cause('greylisted'), updatedAt: new Date(1000) },
      { status: 'deferred' as const, cause: cause('mailbox_full'), updatedAt: new Date(2000) },
      { status: 'bounced' as const, cause: cause('recipient_unknown'), updatedAt: new Date(3000) },
    ];
    expect(deriveMessageCause(deliveries, 'deferred')?.code).toBe('mailbox_full');
    expect(deriveMessageCause(deliveries, 'bounced')?.code).toBe('recipient_unknown');
    expect(deriveMessageCause(deliveries, 'accepted')).toBeNull();
    expect(deriveMessageCause(deliveries, 'sending')).toBeNull();
  });
});
