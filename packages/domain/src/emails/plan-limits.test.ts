import { decideAdmission, rateLimitHeaders, recordAdmission, USAGE_WINDOWS, windowRetryAfter, type UsageState } from './plan-limits';

const FREE = { perMinute: 30, perHour: 300, perDay: 300, per30Days: 3000, maxActive: 250 };
const now = new Date('2026-11-22T10:00:00.000Z');

function state(used: number[], active = 0, oldestAt: Date | null = null): UsageState {
  return {
    windows: USAGE_WINDOWS.map((w, i) => ({ name: w.name, planField: w.planField, seconds: w.seconds, limit: w.limit(FREE), used: used[i]!, oldestAt })),
    active,
    maxActive: FREE.maxActive,
  };
}

describe('decideAdmission', () => {
  it('admits what fits every window and the active limit', () => {
    expect(decideAdmission(state([0, 0, 0, 0]), 30)).toEqual({ admitted: true });
    expect(decideAdmission(state([29, 29, 29, 29]), 1)).toEqual({ admitted: true });
  });

  it('refuses a request that would cross a window, naming what must leave', () => {
    const decision = decideAdmission(state([25, 290, 299, 299]), 6);
    expect(decision).toMatchObject({ admitted: false, code: 'rate_limit_exceeded' });
    if (decision.admitted || decision.code !== 'rate_limit_exceeded') throw new Error('expected a window refusal');
    expect(decision.exceeded.map((e) => [e.window.name, e.mustLeave])).toEqual([
      ['minute', 1],
      ['24 hours', 5],
    ]);
  });

  it('refuses for good a request larger than a window, naming each such window, whatever the usage', () => {
    for (const used of [[0, 0, 0, 0], [30, 300, 300, 3000]]) {
      const decision = decideAdmission(state(used), 301);
      if (decision.admitted || decision.code !== 'plan_limit_exceeded') throw new Error('expected plan_limit_exceeded');
      expect(decision.windows.map((w) => w.planField)).toEqual(['per_minute', 'per_hour', 'per_day']);
    }
    expect(decideAdmission(state([0, 0, 0, 0], 250), 31)).toMatchObject({ code: 'plan_limit_exceeded', windows: [{ planField: 'per_minute' }] });
  });

  it('still answers rate_limit_exceeded for a request exactly as large as a window', () => {
    expect(decideAdmission(state([1, 1, 1, 1]), 30)).toMatchObject({ code: 'rate_limit_exceeded' });
  });

  it('judges active deliveries after the windows', () => {
    expect(decideAdmission(state([0, 0, 0, 0], 249), 2)).toEqual({ admitted: false, code: 'active_delivery_limit_exceeded' });
    expect(decideAdmission(state([0, 0, 0, 0], 250), 1)).toEqual({ admitted: false, code: 'active_delivery_limit_exceeded' });
  });
});

describe('recordAdmission', () => {
  it('counts the recipients in every window and as active', () => {
    const after = recordAdmission(state([1, 1, 1, 1], 1, new Date(now.getTime() - 10_000)), 3, now);
    expect(after.windows.map((w) => w.used)).toEqual([4, 4, 4, 4]);
    expect(after.active).toBe(4);
    expect(after.windows[0]!.oldestAt).toEqual(new Date(now.getTime() - 10_000));
    expect(recordAdmission(state([0, 0, 0, 0]), 1, now).windows[0]!.oldestAt).toEqual(now);
  });
});

describe('windowRetryAfter', () => {
  const exceeded = { window: { name: 'minute', planField: 'per_minute' as const, seconds: 60, limit: 30, used: 30, oldestAt: null }, mustLeave: 1 };

  it('waits until the usage that must leave has left', () => {
    expect(windowRetryAfter(exceeded, new Date(now.getTime() - 45_000), now)).toBe(15);
    expect(windowRetryAfter(exceeded, new Date(now.getTime() - 44_500), now)).toBe(16);
    expect(windowRetryAfter(exceeded, new Date(now.getTime() - 60_000), now)).toBe(1);
  });

  it('answers the window length when no usage to leave is recorded', () => {
    expect(windowRetryAfter(exceeded, null, now)).toBe(60);
  });
});

describe('rateLimitHeaders', () => {
  it('reports the window with the smallest remaining share', () => {
    const oldest = new Date(now.getTime() - 20_000);
    expect(rateLimitHeaders(state([10, 200, 200, 200], 0, oldest), now)).toEqual({ limit: 300, remaining: 100, reset: 3580 });
    expect(rateLimitHeaders(state([29, 29, 29, 29], 0, oldest), now)).toEqual({ limit: 30, remaining: 1, reset: 40 });
  });

  it('reports a fresh account as the full minute window', () => {
    expect(rateLimitHeaders(state([0, 0, 0, 0]), now)).toEqual({ limit: 30, remaining: 30, reset: 0 });
  });
});
