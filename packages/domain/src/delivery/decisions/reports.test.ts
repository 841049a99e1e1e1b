import { applyReport } from './reports';
import { delivery, message } from '../../testing/locked-messages';

const at = new Date('2026-12-01T12:00:00Z');
const hard = { code: 'recipient_unknown' as const, permanent: true, smtp_code: 550, enhanced_status: '5.1.1' };

describe('a report applied to the delivery its token names', () => {
  const accepted = message([delivery('dlv_a', { status: 'accepted', recipient: 'Ann@Example.com' }), delivery('dlv_b', { status: 'accepted', recipient: 'bob@example.com' })]);

  it('bounces an accepted delivery on a permanent failure', () => {
    expect(applyReport(accepted, { deliveryId: 'dlv_a', recipients: ['ann@example.com'], report: { kind: 'failed', cause: hard }, at })).toEqual({
      transitions: [{ reason: 'bounce_reported', delivery: 'dlv_a', to: 'bounced', cause: hard, at }],
      answer: { kind: 'bounce', cause: hard },
    });
  });

  it('adds a complaint as an observation, once', () => {
    const report = { kind: 'complaint' as const, feedbackType: 'abuse' };
    expect(applyReport(accepted, { deliveryId: 'dlv_b', recipients: [], report, at }).observations).toEqual([{ observation: 'complained', delivery: 'dlv_b', at }]);
    const complained = message([delivery('dlv_b', { status: 'accepted', complainedAt: at })]);
    expect(applyReport(complained, { deliveryId: 'dlv_b', recipients: [], report, at })).toEqual({ answer: { kind: 'none', reason: 'already_reported' } });
  });

  it('never lets a report naming another recipient of the transaction change this delivery', () => {
    expect(applyReport(accepted, { deliveryId: 'dlv_a', recipients: ['bob@example.com'], report: { kind: 'failed', cause: hard }, at })).toEqual({
      answer: { kind: 'none', reason: 'unmatched' },
    });
  });

  it('knows no delivery the message does not hold', () => {
    expect(applyReport(undefined, { deliveryId: 'dlv_a', recipients: [], report: { kind: 'delayed' }, at })).toEqual({ answer: { kind: 'none', reason: 'unknown' } });
    expect(applyReport(accepted, { deliveryId: 'dlv_z', recipients: [], report: { kind: 'delayed' }, at })).toEqual({ answer: { kind: 'none', reason: 'unknown' } });
  });
});
