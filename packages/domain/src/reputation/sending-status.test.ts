import { DEFAULT_REPUTATION_THRESHOLDS, judgeReputation, nextSendingStatus, reputationRates, reputationThresholdsProblem } from './sending-status';

const window = (terminal: number, hardBounces: number, complaints = 0, accepted = terminal - hardBounces) => ({ terminal, accepted, hardBounces, complaints });

describe('reputation rates and the sending status rule', () => {
  it('computes bounces over terminal deliveries and complaints over accepted ones, 0 without any', () => {
    expect(reputationRates(window(200, 10, 1))).toEqual({ bounceRate: 0.05, complaintRate: 1 / 190 });
    expect(reputationRates(window(0, 0))).toEqual({ bounceRate: 0, complaintRate: 0 });
  });

  it('judges nothing below the minimum volume', () => {
    expect(judgeReputation(window(199, 199), DEFAULT_REPUTATION_THRESHOLDS)).toEqual({ status: 'enabled', reason: null });
  });

  it('reviews at 5 % bounces or 0.1 % complaints and pauses at 10 % or 0.5 %, thresholds included', () => {
    const at = (w: ReturnType<typeof window>) => judgeReputation(w, DEFAULT_REPUTATION_THRESHOLDS).status;
    expect(at(window(1000, 49))).toBe('enabled');
    expect(at(window(1000, 50))).toBe('under_review');
    expect(at(window(1000, 99))).toBe('under_review');
    expect(at(window(1000, 100))).toBe('paused');
    expect(at(window(1000, 0, 0))).toBe('enabled');
    expect(at(window(1000, 0, 1))).toBe('under_review');
    expect(at(window(1000, 0, 4))).toBe('under_review');
    expect(at(window(1000, 0, 5))).toBe('paused');
  });

  it('says which rate and threshold decided', () => {
    expect(judgeReputation(window(200, 30), DEFAULT_REPUTATION_THRESHOLDS).reason).toBe(
      'hard-bounce rate 15 % of the last 24 hours reached 10 % (200 deliveries)',
    );
    expect(judgeReputation(window(400, 0, 2), DEFAULT_REPUTATION_THRESHOLDS).reason).toBe(
      'complaint rate 0.5 % of the last 24 hours reached 0.5 % (400 deliveries)',
    );
  });

  it('moves enabled and under_review both ways, and never lifts a pause', () => {
    expect(nextSendingStatus('enabled', window(200, 12), DEFAULT_REPUTATION_THRESHOLDS)).toMatchObject({ status: 'under_review' });
    expect(nextSendingStatus('under_review', window(200, 0), DEFAULT_REPUTATION_THRESHOLDS)).toEqual({ status: 'enabled', reason: null });
    expect(nextSendingStatus('under_review', window(200, 12), DEFAULT_REPUTATION_THRESHOLDS)).toBeUndefined();
    expect(nextSendingStatus('under_review', window(200, 40), DEFAULT_REPUTATION_THRESHOLDS)).toMatchObject({ status: 'paused' });
    expect(nextSendingStatus('paused', window(200, 0), DEFAULT_REPUTATION_THRESHOLDS)).toBeUndefined();
  });

  it('refuses thresholds that do not hold together', () => {
    expect(reputationThresholdsProblem(DEFAULT_REPUTATION_THRESHOLDS)).toBeUndefined();
    expect(reputationThresholdsProblem({ ...DEFAULT_REPUTATION_THRESHOLDS, reviewBounceRate: 0.2 })).toMatch(/review bounce rate/);
    expect(reputationThresholdsProblem({ ...DEFAULT_REPUTATION_THRESHOLDS, reviewComplaintRate: 0.01 })).toMatch(/review complaint rate/);
    expect(reputationThresholdsProblem({ ...DEFAULT_REPUTATION_THRESHOLDS, pauseBounceRate: 1.5 })).toMatch(/at most 1/);
    expect(reputationThresholdsProblem({ ...DEFAULT_REPUTATION_THRESHOLDS, minVolume: 0 })).toMatch(/volume/);
  });
});
