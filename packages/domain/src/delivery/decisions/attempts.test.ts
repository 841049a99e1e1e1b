import type { AttemptRecord } from '../delivery-records';
import { recordAttempts } from './attempts';
import { byId, delivery, message } from '../../testing/locked-messages';

const endedAt = new Date('2026-12-01T12:00:05Z');
const attempt: AttemptRecord = { startedAt: new Date('2026-12-01T12:00:00Z'), endedAt, outcome: 'accepted', cause: null, transport: null };

describe('recording attempts', () => {
  const leased = (id: string, token = 'lease-1') => delivery(id, { status: 'sending', leaseToken: token });

  it('applies each decision whose delivery is still under the attempt lease, and adds the complaint that followed', () => {
    const m = message([leased('dlv_a'), leased('dlv_b', 'taken-over')]);
    const changes = recordAttempts(byId(m), [
      {
        emailId: 'eml_1',
        leaseToken: 'lease-1',
        attempt,
        decisions: [
          { deliveryId: 'dlv_a', status: 'accepted', cause: null, complained: true },
          { deliveryId: 'dlv_b', status: 'accepted', cause: null },
        ],
      },
    ]);
    expect(changes.answer).toEqual([1]);
    expect(changes.transitions).toEqual([{ reason: 'attempted', delivery: 'dlv_a', to: 'accepted', cause: null, at: endedAt, attempt }]);
    expect(changes.observations).toEqual([{ observation: 'complained', delivery: 'dlv_a', at: endedAt }]);
  });

  it('applies a journaled decision to a delivery sending under any lease, and none to one already recorded', () => {
    const retry = new Date('2026-12-01T12:10:00Z');
    const cause = { code: 'greylisted' as const, permanent: false, smtp_code: 451, enhanced_status: null };
    const m = message([leased('dlv_a', 'later-lease'), delivery('dlv_b', { status: 'accepted', leaseToken: null })]);
    const changes = recordAttempts(byId(m), [
      {
        emailId: 'eml_1',
        leaseToken: 'lease-1',
        attempt,
        journaled: true,
        decisions: [
          { deliveryId: 'dlv_a', status: 'deferred', cause, nextAttemptAt: retry },
          { deliveryId: 'dlv_b', status: 'bounced', cause },
        ],
      },
    ]);
    expect(changes.answer).toEqual([1]);
    expect(changes.transitions).toEqual([{ reason: 'attempted', delivery: 'dlv_a', to: 'deferred', cause, at: endedAt, attempt, nextAttemptAt: retry }]);
  });

  it('answers none applied for a message that no longer exists', () => {
    expect(recordAttempts(new Map(), [{ emailId: 'eml_gone', leaseToken: 'x', attempt, decisions: [{ deliveryId: 'dlv_a', status: 'accepted', cause: null }] }]).answer).toEqual([0]);
  });
});
