/** An account's plan (docs/api-decisions.md, "Emails"): rolling windows on recipient-emails and active deliveries. */
export interface PlanLimits {
  perMinute: number;
  perHour: number;
  perDay: number;
  per30Days: number;
  maxActive: number;
}

/**
 * The windows in the order intake judges them. `planField` and `usageField` name the window
 * in GET /v1/account (`plan.per_day`, `usage.day`) and in `plan_limit_exceeded` details.
 */
export const USAGE_WINDOWS = [
  { name: 'minute', planField: 'per_minute', usageField: 'minute', seconds: 60, limit: (p: PlanLimits) => p.perMinute },
  { name: 'hour', planField: 'per_hour', usageField: 'hour', seconds: 3_600, limit: (p: PlanLimits) => p.perHour },
  { name: '24 hours', planField: 'per_day', usageField: 'day', seconds: 86_400, limit: (p: PlanLimits) => p.perDay },
  { name: '30 days', planField: 'per_30_days', usageField: 'thirty_days', seconds: 2_592_000, limit: (p: PlanLimits) => p.per30Days },
] as const;

export type PlanWindowField = (typeof USAGE_WINDOWS)[number]['planField'];

export interface UsageWindow {
  name: string;
  planField: PlanWindowField;
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
}

export type Admission =
  | { admitted: true }
  /** The request's recipients alone exceed these windows' limits: no wait makes it fit. */
  | { admitted: false; code: 'plan_limit_exceeded'; windows: UsageWindow[] }
  | { admitted: false; code: 'rate_limit_exceeded'; exceeded: ExceededWindow[] }
  | { admitted: false; code: 'active_delivery_limit_exceeded' };

/**
 * Whether `recipients` more recipient-emails (and as many deliveries) fit every limit. A
 * request larger than a window's whole limit is refused for good before any usage is
 * looked at (docs/api-decisions.md, "Account view and plan limits"); then the windows'
 * room, then active deliveries.
 */
export function decideAdmission(state: UsageState, recipients: number): Admission {
  const neverFit = state.windows.filter((w) => recipients > w.limit);
  if (neverFit.length > 0) return { admitted: false, code: 'plan_limit_exceeded', windows: neverFit };
  const exceeded = state.windows
    .filter((w) => w.used + recipients > w.limit)
    .map((window) => ({ window, mustLeave: window.used + recipients - window.limit }));
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
 * (the newest of what must leave) has left it; the window's whole length when no such usage
 * is recorded.
 */
export function windowRetryAfter(exceeded: ExceededWindow, releasedAt: Date | null, now: Date): number {
  if (!releasedAt) return exceeded.window.seconds;
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
