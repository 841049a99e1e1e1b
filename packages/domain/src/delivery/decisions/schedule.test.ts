import { CANCELED } from '../cancel';
import { cancelMessage, rescheduleMessage } from './schedule';
import { delivery, message } from '../../testing/locked-messages';

const now = new Date('2026-12-01T12:00:00Z');
const suppressed = delivery('dlv_s', { status: 'failed', cause: { code: 'recipient_suppressed', permanent: true, smtp_code: null, enhanced_status: null } });

describe('a cancel', () => {
  it('ends every queued delivery failed/canceled, leaving one already terminal without an attempt', () => {
    const changes = cancelMessage(message([delivery('dlv_a'), suppressed]), now);
    expect(changes.answer).toBe('canceled');
    expect(changes.transitions).toEqual([{ reason: 'canceled', delivery: 'dlv_a', to: 'failed', cause: CANCELED, at: now }]);
  });

  it('changes nothing once a delivery has started', () => {
    for (const started of [delivery('dlv_b', { status: 'sending' }), delivery('dlv_b', { status: 'deferred', attemptCount: 1 })]) {
      const changes = cancelMessage(message([delivery('dlv_a'), started]), now);
      expect(changes).toEqual({ answer: 'not_cancelable' });
    }
  });
});

describe('a reschedule', () => {
  it('makes every queued delivery first owed at the new time, exactly while a cancel is allowed', () => {
    const dueAt = new Date('2026-12-03T09:00:00Z');
    expect(rescheduleMessage(message([delivery('dlv_a'), suppressed]), dueAt, now)).toEqual({
      transitions: [{ reason: 'rescheduled', delivery: 'dlv_a', to: 'queued', cause: null, at: now, nextAttemptAt: dueAt }],
      answer: 'rescheduled',
    });
    expect(rescheduleMessage(message([delivery('dlv_a', { status: 'sending' })]), dueAt, now)).toEqual({ answer: 'not_reschedulable' });
  });
});
