import { unsubscribe } from './unsubscribe';
import { delivery, message } from '../../testing/locked-messages';

const at = new Date('2026-12-02T12:00:00Z');

describe("a recipient's unsubscribe of the delivery its token names", () => {
  it('is the observation unsubscribed of an accepted delivery, or of one bounced after acceptance', () => {
    const accepted = message([delivery('dlv_a', { status: 'accepted' }), delivery('dlv_b', { status: 'bounced' })]);
    expect(unsubscribe(accepted, 'dlv_a', at)).toEqual({ observations: [{ observation: 'unsubscribed', delivery: 'dlv_a', at }], answer: { kind: 'unsubscribed' } });
    expect(unsubscribe(accepted, 'dlv_b', at).observations).toEqual([{ observation: 'unsubscribed', delivery: 'dlv_b', at }]);
  });

  it('applies once: a second one changes nothing', () => {
    const unsubscribed = message([delivery('dlv_a', { status: 'accepted', unsubscribedAt: at })]);
    expect(unsubscribe(unsubscribed, 'dlv_a', new Date(at.getTime() + 1000))).toEqual({ answer: { kind: 'none', reason: 'already_unsubscribed' } });
  });

  it('changes nothing of a delivery that was never accepted', () => {
    for (const status of ['queued', 'sending', 'deferred', 'failed'] as const) {
      expect(unsubscribe(message([delivery('dlv_a', { status })]), 'dlv_a', at)).toEqual({ answer: { kind: 'none', reason: 'not_delivered' } });
    }
  });

  it('knows no delivery the message does not hold', () => {
    expect(unsubscribe(undefined, 'dlv_a', at)).toEqual({ answer: { kind: 'none', reason: 'unknown' } });
    expect(unsubscribe(message([delivery('dlv_a', { status: 'accepted' })]), 'dlv_z', at)).toEqual({ answer: { kind: 'none', reason: 'unknown' } });
  });
});
