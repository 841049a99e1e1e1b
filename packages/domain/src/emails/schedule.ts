/** How far ahead a message may be scheduled (docs/api-decisions.md, "Send API additions"). */
export const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 60 * 60 * 1000;

/** RFC 3339 date-time: a date, `T`, a time with optional fraction, and `Z` or an offset. */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant an RFC 3339 date-time names, or null when it is not one (calendar checked). */
export function parseRfc3339(input: string): Date | null {
  const match = RFC_3339.exec(input);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const date = new Date(input);
  if (Number.isNaN(date.getTime())) return null;
  // Date.parse rolls 2026-02-30 over to March; a date the calendar lacks is refused.
  const calendar = new Date(Date.UTC(y!, mo! - 1, d!));
  if (calendar.getUTCMonth() !== mo! - 1 || calendar.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59) return null;
  return date;
}

/** Why a scheduled instant is refused (more than 7 days ahead of `now`), or null. */
export function scheduleProblem(scheduledAt: Date | null, now: Date): string | null {
  return scheduledAt !== null && scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS ? 'must be at most 7 days ahead' : null;
}

/**
 * When a message's deliveries are first due: the scheduled instant, or `now` for a message
 * given none or one already past (a client clock a little behind ours must not turn
 * "now" into a refusal).
 */
export const firstDueAt = (scheduledAt: Date | null, now: Date): Date => (scheduledAt !== null && scheduledAt > now ? scheduledAt : now);
