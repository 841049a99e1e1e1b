import { firstDueAt, MAX_SCHEDULE_AHEAD_MS, parseRfc3339, scheduleProblem } from './schedule';

describe('scheduled send', () => {
  it('parses RFC 3339 date-times with Z or an offset, refusing other forms and impossible dates', () => {
    expect(parseRfc3339('2026-11-24T10:00:00Z')).toEqual(new Date('2026-11-24T10:00:00.000Z'));
    expect(parseRfc3339('2026-11-24T12:00:00.250+02:00')).toEqual(new Date('2026-11-24T10:00:00.250Z'));
    for (const bad of ['2026-11-24', '2026-11-24T10:00:00', '2026-11-24 10:00:00Z', '2026-02-30T10:00:00Z', '2026-11-24T24:00:00Z', 'tomorrow', '1764000000']) {
      expect(parseRfc3339(bad)).toBeNull();
    }
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
