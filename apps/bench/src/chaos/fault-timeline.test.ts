import { defaultTimeline, FAULT_KINDS, formatTimeline, parseTimeline } from './fault-timeline';

describe('the chaos fault timeline', () => {
  it('parses FAULTS entries in any order into time order', () => {
    expect(parseTimeline('25s pg-restart, 10s kill-daemon,1m redis-flushall ,500ms kill-api')).toEqual([
      { atMs: 500, kind: 'kill-api' },
      { atMs: 10_000, kind: 'kill-daemon' },
      { atMs: 25_000, kind: 'pg-restart' },
      { atMs: 60_000, kind: 'redis-flushall' },
    ]);
    expect(parseTimeline('')).toEqual([]);
  });

  it('refuses an unknown kind, a bad duration or extra words, naming the entry', () => {
    expect(() => parseTimeline('10s kill-everything')).toThrow(/"10s kill-everything"/);
    expect(() => parseTimeline('soon kill-api')).toThrow(/"soon kill-api"/);
    expect(() => parseTimeline('10s kill-api now')).toThrow(/"10s kill-api now"/);
  });

  it('spreads rounds of every kind evenly over the first nine tenths of the load', () => {
    const faults = defaultTimeline(60_000, 2);
    expect(faults.map((f) => f.kind)).toEqual([...FAULT_KINDS, ...FAULT_KINDS]);
    const times = faults.map((f) => f.atMs);
    expect(times[0]).toBeGreaterThan(0);
    expect(times.at(-1)).toBeLessThan(54_000);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
  });

  it('formats a timeline in the form it parses', () => {
    const faults = defaultTimeline(30_000, 1);
    expect(parseTimeline(formatTimeline(faults))).toEqual(faults.map((f) => ({ ...f, atMs: Math.round(f.atMs / 100) * 100 })));
  });
});
