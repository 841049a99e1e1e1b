/** An account's plan (docs/api-decisions.md, "Emails"): rolling windows on recipient-emails and active deliveries. */
export interface PlanLimits {
  perMinute: number;
  perHour: number;
  perDay: number;
  per30Days: number;
  maxActive: number;
}

export const USAGE_WINDOWS = [
  { name: 'minute', seconds: 60, limit: (p: PlanLimits) => p.perMinute },
  { name: 'hour', seconds: 3_600, limit: (p: PlanLimits) => p.perHour },
  { name: '24 hours', seconds: 86_400, limit: (p: PlanLimits) => p.perDay },
  { name: '30 days', seconds: 2_592_000, limit: (p: PlanLimits) => p.per30Days },
] as const;

export interface UsageWindow {
  name: string;
  seconds: number;
  limit: number;
  /** Recipient-emails accepted in (now - seconds, now]. */
  used: number;
  /** When the oldest usage still counted was accepted; null when the window is empty. */
  oldestAt: Date | null;
}

export interface UsageState {
  windows: UsageWindow[];
  /** Recipient deliveries in queued, sending or deferred. */
  active: number;
  maxActive: number;
}

export interface ExceededWindow {
  window: UsageWindow;
  /** Recipient-emails that must leave the window before the request fits. */
  mustLeave: number;
  /** The request alone is larger than the window's limit: waiting never helps. */
  neverFits: boolean;
}

export type Admission =
  | { admitted: true }
  | { admitted: false; code: 'rate_limit_exceeded'; exceeded: ExceededWindow[] }
  | { admitted: false; code: 'active_delivery_limit_exceeded' };

/** Whether `recipients` more recipient-emails (and as many deliveries) fit every limit; windows are judged first. */
export function decideAdmission(state: UsageState, recipients: number): Admission {
  const exceeded = state.windows
    .filter((w) => w.used + recipients > w.limit)
    .map((window) => ({ window, mustLeave: window.used + recipients - window.limit, neverFits: recipients > window.limit }));
  if (exceeded.length > 0) return { admitted: false, code: 'rate_limit_exceeded', exceeded };
  if (state.active + recipients > state.maxActive) return { admitted: false, code: 'active_delivery_limit_exceeded' };
  return { admitted: true };
}

/** The state after an admission at `at`. */
export function recordAdmission(state: UsageState, recipients: number, at: Date): UsageState {
  return {
    ...state,
    active: state.active + recipients,
    windows: state.windows.map((w) => ({ ...w, used: w.used + recipients, oldestAt: w.oldestAt ?? at })),
  };
}

const secondsUntil = (instant: number, now: Date) => Math.max(0, Math.ceil((instant - now.getTime()) / 1000));

/**
 * Seconds until a refused request fits the window: when the usage accepted at `releasedAt`
 * (the newest of what must leave) has left it. A request that can never fit gets the
 * window's whole length.
 */
export function windowRetryAfter(exceeded: ExceededWindow, releasedAt: Date | null, now: Date): number {
  if (exceeded.neverFits || !releasedAt) return exceeded.window.seconds;
  return Math.max(1, secondsUntil(releasedAt.getTime() + exceeded.window.seconds * 1000, now));
}

/**
 * While active deliveries are at the limit, the time after which a retry is worth it:
 * deliveries finish on the delivery daemon's schedule, so a fixed short pause.
 */
export const ACTIVE_LIMIT_RETRY_AFTER_SECONDS = 30;

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** Seconds until the oldest usage counted in the window leaves it (remaining grows then); 0 when none is counted. */
  reset: number;
}

/** The RateLimit-* values for the window with the smallest remaining share of its limit (the first such on a tie). */
export function rateLimitHeaders(state: UsageState, now: Date): RateLimitHeaders {
  const share = (w: UsageWindow) => (w.limit === 0 ? 0 : Math.max(0, w.limit - w.used) / w.limit);
  const tightest = state.windows.reduce((best, w) => (share(w) < share(best) ? w : best));
  return {
    limit: tightest.limit,
    remaining: Math.max(0, tightest.limit - tightest.used),
    reset: tightest.oldestAt ? secondsUntil(tightest.oldestAt.getTime() + tightest.seconds * 1000, now) : 0,
  };
}
