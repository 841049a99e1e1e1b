import { decideAdmission, rateLimitHeaders, windowRetryAfter } from './plan-limits';
import { TEST_RECIPIENTS_PER_MINUTE, testModeUsage, testUsageReachedAt } from './test-mode-bound';

const now = new Date('2026-11-27T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

describe('the test-mode bound', () => {
  const recent = [
    { at: ago(50), recipients: 30 },
    { at: ago(20), recipients: 60 },
  ];

  it('admits while the last minute holds at most 100 recipients', () => {
    expect(TEST_RECIPIENTS_PER_MINUTE).toBe(100);
    expect(decideAdmission(testModeUsage(recent), 10)).toEqual({ admitted: true });
    expect(rateLimitHeaders(testModeUsage(recent), now)).toEqual({ limit: 100, remaining: 10, reset: 10 });
  });

  it('refuses past it, with a Retry-After for when enough recipients left the minute', () => {
    const admission = decideAdmission(testModeUsage(recent), 11);
    if (admission.admitted || admission.code !== 'rate_limit_exceeded') throw new Error('expected a refusal');
    const [exceeded] = admission.exceeded;
    expect(exceeded!.mustLeave).toBe(1);
    expect(testUsageReachedAt(recent, exceeded!.mustLeave)).toEqual(ago(50));
    expect(windowRetryAfter(exceeded!, testUsageReachedAt(recent, exceeded!.mustLeave), now)).toBe(10);
    expect(testUsageReachedAt(recent, 31)).toEqual(ago(20));
  });

  it('a request over 100 recipients never fits', () => {
    expect(decideAdmission(testModeUsage([]), 101)).toMatchObject({
      admitted: false,
      code: 'plan_limit_exceeded',
      windows: [{ planField: 'per_minute', limit: 100 }],
    });
    expect(testUsageReachedAt([], 1)).toBeNull();
  });
});
