import { fitsAllowance, nextUtcDay, utcDay, warmUpAllowance, warmUpDay } from './warm-up';

const schedule = [50, 100, 200];

describe('warm-up', () => {
  it('counts UTC days from the start', () => {
    expect(warmUpDay('2026-11-27', new Date('2026-11-27T00:00:00Z'))).toBe(0);
    expect(warmUpDay('2026-11-27', new Date('2026-11-27T23:59:59Z'))).toBe(0);
    expect(warmUpDay('2026-11-27', new Date('2026-11-28T00:00:00Z'))).toBe(1);
    expect(warmUpDay('2026-11-27', new Date('2026-12-04T12:00:00Z'))).toBe(7);
  });

  it("allows each day's number, then no cap once the schedule is over", () => {
    expect(warmUpAllowance(schedule, '2026-11-27', new Date('2026-11-27T10:00:00Z'))).toBe(50);
    expect(warmUpAllowance(schedule, '2026-11-27', new Date('2026-11-28T10:00:00Z'))).toBe(100);
    expect(warmUpAllowance(schedule, '2026-11-27', new Date('2026-11-29T10:00:00Z'))).toBe(200);
    expect(warmUpAllowance(schedule, '2026-11-27', new Date('2026-11-30T10:00:00Z'))).toBeNull();
  });

  it('has no cap for an address not warming up, and the first day before a later start', () => {
    expect(warmUpAllowance(schedule, null, new Date())).toBeNull();
    expect(warmUpAllowance(schedule, '2026-12-01', new Date('2026-11-27T10:00:00Z'))).toBe(50);
  });

  it('turns at UTC midnight', () => {
    expect(utcDay(new Date('2026-11-27T23:59:59.999Z'))).toBe('2026-11-27');
    expect(nextUtcDay(new Date('2026-11-27T10:00:00Z')).toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-11-28T00:00:00Z')).toISOString()).toBe('2026-11-29T00:00:00.000Z');
  });

  it('fits messages whole within the allowance, and always the first of a day', () => {
    expect(fitsAllowance(50, 49, 1)).toBe(true);
    expect(fitsAllowance(50, 50, 1)).toBe(false);
    expect(fitsAllowance(50, 45, 10)).toBe(false);
    expect(fitsAllowance(50, 0, 80)).toBe(true);
  });
});
