import type { UsageState } from './plan-limits';

/**
 * The one bound of test mode (docs/api-decisions.md, "Test mode"): recipients of test messages
 * an account may send in any 60 seconds. Test messages count nothing of the plan.
 */
export const TEST_RECIPIENTS_PER_MINUTE = 100;

/** A test message accepted in the last minute: when, and how many recipients it had. */
export interface RecentTestMessage {
  at: Date;
  recipients: number;
}

/**
 * The test bound as a usage state with one window and no active limit, so that the plan's
 * admission, RateLimit-* and Retry-After rules (plan-limits) judge it. `recent` is oldest first.
 */
export function testModeUsage(recent: readonly RecentTestMessage[]): UsageState {
  return {
    windows: [
      {
        name: 'minute (test mode)',
        planField: 'per_minute',
        seconds: 60,
        limit: TEST_RECIPIENTS_PER_MINUTE,
        used: recent.reduce((sum, m) => sum + m.recipients, 0),
        oldestAt: recent[0]?.at ?? null,
      },
    ],
    active: 0,
    maxActive: Number.POSITIVE_INFINITY,
  };
}

/**
 * When the recipients that must leave the window before a request fits were accepted: the
 * instant of the message at which, oldest first, at least `mustLeave` recipients are counted;
 * null when the recent messages do not hold that many (messages admitted just before, in the same
 * transaction, must leave too: a full minute then).
 */
export function testUsageReachedAt(recent: readonly RecentTestMessage[], mustLeave: number): Date | null {
  let counted = 0;
  for (const m of recent) {
    counted += m.recipients;
    if (counted >= mustLeave) return m.at;
  }
  return null;
}
