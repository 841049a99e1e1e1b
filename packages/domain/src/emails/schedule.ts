/** How far ahead a message may be scheduled (docs/api-decisions.md, "Send API additions"). */
export const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 60 * 60 * 1000;

/** RFC 3339 date-time: a date, `T`, a time with optional fraction, and `Z` or an offset. */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The instants taken: those whose UTC form has a four-digit year. Another (`0000-01-01T00:00:00+01:00`
 * is in year -1) has no RFC 3339 form to show back and is out of PostgreSQL's range as sent.
 */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** What an input parseRfc3339 refuses is told (docs/api-decisions.md, "Send API additions"). */
export const RFC_3339_RULE = 'must be an RFC 3339 date-time with a time zone, in years 0001 to 9999 in UTC, e.g. 2026-11-24T10:00:00Z';

/** The instant an RFC 3339 date-time names, or null when it is not one (calendar checked) or out of range. */
export function parseRfc3339(input: string): Date | null {
  const match = RFC_3339.exec(input);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const date = new Date(input);
  if (Number.isNaN(date.getTime()) || date.getTime() < EARLIEST || date.getTime() > LATEST) return null;
  // Date.parse rolls 2026-02-30 over to March; a date the calendar lacks is refused. setUTCFullYear
  // takes the year as written, where Date.UTC would read 0000..0099 as 1900..1999.
  const calendar = new Date(0);
  calendar.setUTCFullYear(y!, mo! - 1, d!);
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
