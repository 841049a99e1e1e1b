/**
 * The warm-up of a new sending address (docs/api-decisions.md, "Providers and egress pools"):
 * on the n-th UTC day since its warm-up started (day 0 the first), it may send `schedule[n]`
 * messages to each provider; past the schedule's last day it is warm and has no cap.
 */

const DAY_MS = 86_400_000;

/** The UTC calendar day of `at`, as `YYYY-MM-DD`: counters and warm-up days turn at UTC midnight. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The start of the UTC day after `at`'s: when the next day's allowance comes. */
export function nextUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** Whole UTC days from `startedOn` (`YYYY-MM-DD`) to `at`'s day; 0 on the first day, negative before it. */
export function warmUpDay(startedOn: string, at: Date): number {
  return Math.round((Date.parse(`${utcDay(at)}T00:00:00Z`) - Date.parse(`${startedOn}T00:00:00Z`)) / DAY_MS);
}

/**
 * Messages the address may send to one provider on `at`'s UTC day: null when it is not warming
 * up (`startedOn` null) or has passed the schedule; a warm-up that starts on a later day allows
 * that first day's number already.
 */
export function warmUpAllowance(schedule: readonly number[], startedOn: string | null, at: Date): number | null {
  if (startedOn === null) return null;
  const day = Math.max(0, warmUpDay(startedOn, at));
  return day < schedule.length ? schedule[day]! : null;
}

/**
 * Whether `count` more messages fit in a day's `allowance` of which `used` went already: they
 * must fit whole, except on a day nothing went yet, so that a message with more recipients than
 * the allowance still goes (once that day).
 */
export function fitsAllowance(allowance: number, used: number, count: number): boolean {
  return used === 0 || used + count <= allowance;
}
