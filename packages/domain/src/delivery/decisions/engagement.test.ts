import { recordEngagement, recordEngagements } from './engagement';
import { delivery, message } from '../../testing/locked-messages';

const at = new Date('2026-12-02T12:00:00Z');
const engagement = { userAgent: 'Mail', proxy: null };

describe('an open or a click of the delivery its token names', () => {
  it('is the observation of an accepted delivery, or of one bounced after acceptance, each time', () => {
    const accepted = message([delivery('dlv_a', { status: 'accepted', openedAt: at }), delivery('dlv_b', { status: 'bounced' })]);
    expect(recordEngagement(accepted, 'dlv_a', 'opened', at, engagement)).toEqual({
      observations: [{ observation: 'opened', delivery: 'dlv_a', at, engagement }],
      answer: { kind: 'recorded' },
    });
    const click = { ...engagement, url: 'https://shop.test/' };
    expect(recordEngagement(accepted, 'dlv_b', 'clicked', at, click).observations).toEqual([{ observation: 'clicked', delivery: 'dlv_b', at, engagement: click }]);
  });

  it('records nothing of a delivery not accepted yet', () => {
    for (const status of ['queued', 'sending', 'deferred', 'failed'] as const) {
      expect(recordEngagement(message([delivery('dlv_a', { status })]), 'dlv_a', 'clicked', at, engagement)).toEqual({ answer: { kind: 'none', reason: 'not_delivered' } });
    }
  });

  it('knows no BCC delivery, no test message and no delivery the message does not hold', () => {
    expect(recordEngagement(message([delivery('dlv_a', { status: 'accepted', kind: 'bcc' })]), 'dlv_a', 'opened', at, engagement).answer).toEqual({ kind: 'none', reason: 'unknown' });
    expect(recordEngagement(message([delivery('dlv_a', { status: 'accepted' })], { test: true }), 'dlv_a', 'opened', at, engagement).answer).toEqual({ kind: 'none', reason: 'unknown' });
    expect(recordEngagement(undefined, 'dlv_a', 'opened', at, engagement).answer).toEqual({ kind: 'none', reason: 'unknown' });
  });
});

describe('opens and clicks that arrived together', () => {
  it('are each decided alone, in order, and written as one change', () => {
    const messages = new Map([
      ['em_1', message([delivery('dlv_a', { status: 'accepted' })], { emailId: 'em_1' })],
      ['em_2', message([delivery('dlv_b', { status: 'queued' })], { emailId: 'em_2' })],
    ]);
    const click = { ...engagement, url: 'https://shop.test/' };
    const changes = recordEngagements(messages, [
      { emailId: 'em_1', deliveryId: 'dlv_a', observation: 'opened', at, engagement },
      { emailId: 'em_2', deliveryId: 'dlv_b', observation: 'clicked', at, engagement: click },
      { emailId: 'em_gone', deliveryId: 'dlv_c', observation: 'opened', at, engagement },
      { emailId: 'em_1', deliveryId: 'dlv_a', observation: 'clicked', at, engagement: click },
    ]);
    expect(changes.answer).toEqual([{ kind: 'recorded' }, { kind: 'none', reason: 'not_delivered' }, { kind: 'none', reason: 'unknown' }, { kind: 'recorded' }]);
    expect(changes.observations).toEqual([
      { observation: 'opened', delivery: 'dlv_a', at, engagement },
      { observation: 'clicked', delivery: 'dlv_a', at, engagement: click },
    ]);
  });
});
