import { afterTransaction, initialDestinationState, isSuspended, transactionFeedback, type DestinationTuning, type TransactionFeedback } from './destination-feedback';

const tuning: DestinationTuning = { initial: 5, max: 8, suspendAfterFailures: 3, suspendMs: 60_000 };
const run = (feedbacks: TransactionFeedback[], nowMs = 0) =>
  feedbacks.reduce((state, f) => afterTransaction(state, f, tuning, nowMs), initialDestinationState(tuning));

describe('destination feedback (AIMD)', () => {
  it('starts at the initial concurrency, never above the maximum', () => {
    expect(initialDestinationState(tuning).concurrency).toBe(5);
    expect(initialDestinationState({ ...tuning, max: 2 }).concurrency).toBe(2);
  });

  it('adds one after a round of successes, up to the maximum', () => {
    expect(run(Array(4).fill('success')).concurrency).toBe(5);
    expect(run(Array(5).fill('success')).concurrency).toBe(6);
    expect(run(Array(5 + 6).fill('success')).concurrency).toBe(7);
    expect(run(Array(100).fill('success')).concurrency).toBe(8);
  });

  it('halves on a throttling reply or a connection failure, never below 1', () => {
    expect(run(['throttled']).concurrency).toBe(2);
    expect(run(['connection_failed']).concurrency).toBe(2);
    expect(run(['throttled', 'throttled', 'throttled', 'throttled']).concurrency).toBe(1);
  });

  it('suspends after consecutive connection failures, at concurrency 1, for the suspension time', () => {
    const state = run(['connection_failed', 'connection_failed', 'connection_failed'], 1_000);
    expect(state).toMatchObject({ concurrency: 1, suspendedUntil: 61_000 });
    expect(isSuspended(state, 60_999)).toBe(true);
    expect(isSuspended(state, 61_000)).toBe(false);
  });

  it("after a suspension, suspends again at the probe's connection failure, and not after its success", () => {
    const suspended = run(['connection_failed', 'connection_failed', 'connection_failed'], 0);
    expect(afterTransaction(suspended, 'connection_failed', tuning, 70_000).suspendedUntil).toBe(130_000);
    const recovered = afterTransaction(suspended, 'success', tuning, 70_000);
    expect(recovered.suspendedUntil).toBeNull();
    expect(afterTransaction(recovered, 'connection_failed', tuning, 71_000).suspendedUntil).toBeNull();
  });

  it('does not suspend when a success or a throttling reply breaks the run of failures', () => {
    expect(run(['connection_failed', 'connection_failed', 'success', 'connection_failed']).suspendedUntil).toBeNull();
    expect(run(['connection_failed', 'connection_failed', 'throttled', 'connection_failed']).suspendedUntil).toBeNull();
  });

  it('leaves the state alone on neutral feedback, and lifts a suspension that ran out', () => {
    const suspended = run(['connection_failed', 'connection_failed', 'connection_failed'], 0);
    expect(afterTransaction(suspended, 'neutral', tuning, 1_000)).toEqual(suspended);
    expect(afterTransaction(suspended, 'neutral', tuning, 60_000).suspendedUntil).toBeNull();
  });
});

describe('transactionFeedback', () => {
  it('reads throttling, success, connection failures and nothing from a report', () => {
    expect(transactionFeedback({ connected: true, aborted: false, causes: ['rate_limited_by_recipient'] })).toBe('throttled');
    expect(transactionFeedback({ connected: false, aborted: false, causes: ['rate_limited_by_recipient'] })).toBe('throttled');
    expect(transactionFeedback({ connected: true, aborted: false, causes: [undefined, 'mailbox_full'] })).toBe('success');
    expect(transactionFeedback({ connected: false, aborted: false, causes: ['timeout'] })).toBe('connection_failed');
    expect(transactionFeedback({ connected: false, aborted: false, causes: ['connection_failed'] })).toBe('connection_failed');
    expect(transactionFeedback({ connected: false, aborted: false, causes: ['dns_temporary_failure'] })).toBe('neutral');
    expect(transactionFeedback({ connected: false, aborted: true, causes: ['connection_failed'] })).toBe('neutral');
  });
});
