import { firstDueAt, MAX_SCHEDULE_AHEAD_MS, parseRfc3339, scheduleProblem } from './schedule';

describe('scheduled send', () => {
  it('parses RFC 3339 date-times with Z or an offset, refusing other forms and impossible dates', () => {
    expect(parseRfc3339('2026-11-24T10:00:00Z')).toEqual(new Date('2026-11-24T10:00:00.000Z'));
    expect(parseRfc3339('2026-11-24T12:00:00.250+02:00')).toEqual(new Date('2026-11-24T10:00:00.250Z'));
    for (const bad of ['2026-11-24', '2026-11-24T10:00:00', '2026-11-24 10:00:00Z', '2026-02-30T10:00:00Z', '2026-11-24T24:00:00Z', 'tomorrow', '1764000000']) {
      expect(parseRfc3339(bad)).toBeNull();
    }
  });

  it('takes only instants whose UTC form has a four-digit year, reading years 0000..0099 as written', () => {
    for (const outside of ['0000-01-01T00:00:00+01:00', '0001-01-01T00:30:00+05:00', '0000-12-31T23:59:59.999Z', '9999-12-31T23:30:00-05:00']) {
      expect(parseRfc3339(outside)).toBeNull();
    }
    expect(parseRfc3339('0001-01-01T05:00:00+05:00')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseRfc3339('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseRfc3339('0050-06-01T00:00:00Z')?.getUTCFullYear()).toBe(50);
    expect(parseRfc3339('0004-02-29T00:00:00Z')?.toISOString()).toBe('0004-02-29T00:00:00.000Z');
    expect(parseRfc3339('0100-02-29T00:00:00Z')).toBeNull();
  });

  it('is due at the scheduled instant, at once when none or past, and refused beyond 7 days', () => {
    const now = new Date('2026-11-24T00:00:00.000Z');
    const later = new Date(now.getTime() + 60_000);
    expect(firstDueAt(null, now)).toEqual(now);
    expect(firstDueAt(new Date(now.getTime() - 1000), now)).toEqual(now);
    expect(firstDueAt(later, now)).toEqual(later);
    expect(scheduleProblem(null, now)).toBeNull();
    expect(scheduleProblem(new Date(now.getTime() + MAX_SCHEDULE_AHEAD_MS), now)).toBeNull();
    expect(scheduleProblem(new Date(now.getTime() + MAX_SCHEDULE_AHEAD_MS + 1), now)).toBe('must be at most 7 days ahead');
  });
});
