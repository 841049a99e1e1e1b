import fc from 'fast-check';
import { decideRetry, retryDelayMs, RETRY_JITTER } from './retry-policy';

const MIN = 60_000;
const HOUR = 60 * MIN;
const schedule = [1 * MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 2 * HOUR, 4 * HOUR];
const policy = { scheduleMs: schedule, maxDeliveryAgeMs: 72 * HOUR };

describe('retryDelayMs', () => {
  it('follows the schedule, the last step repeating', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 7, 8, 30].map((n) => retryDelayMs(schedule, n, middle))).toEqual([MIN, 5 * MIN, 15 * MIN, 4 * HOUR, 4 * HOUR, 4 * HOUR]);
  });

  it('stays within the jitter band around each step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempts, r) => {
        const base = schedule[Math.min(attempts, schedule.length) - 1]!;
        const delay = retryDelayMs(schedule, attempts, () => r);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - RETRY_JITTER)));
        expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + RETRY_JITTER)));
      }),
    );
  });

  it('spreads deliveries deferred together', () => {
    const delays = new Set(Array.from({ length: 20 }, () => retryDelayMs(schedule, 1)));
    expect(delays.size).toBeGreaterThan(1);
  });
});

describe('decideRetry', () => {
  const createdAt = new Date('2026-01-01T00:00:00.000Z');

  it('schedules the next attempt from now', () => {
    const now = new Date(createdAt.getTime() + 10 * MIN);
    expect(decideRetry(policy, { createdAt, attemptCount: 2 }, now, () => 0.5)).toEqual({ kind: 'retry', at: new Date(now.getTime() + 5 * MIN) });
  });

  it('never schedules past the maximum age, and gives up once it is reached', () => {
    const now = new Date(createdAt.getTime() + 71 * HOUR);
    expect(decideRetry(policy, { createdAt, attemptCount: 20 }, now, () => 0.5)).toEqual({ kind: 'retry', at: new Date(createdAt.getTime() + 72 * HOUR) });
    expect(decideRetry(policy, { createdAt, attemptCount: 21 }, new Date(createdAt.getTime() + 72 * HOUR))).toEqual({ kind: 'give_up' });
  });

  it('gives up only after at least one attempt', () => {
    const late = new Date(createdAt.getTime() + 100 * HOUR);
    expect(decideRetry(policy, { createdAt, attemptCount: 0 }, late).kind).toBe('retry');
    expect(decideRetry(policy, { createdAt, attemptCount: 1 }, late).kind).toBe('give_up');
  });
});
