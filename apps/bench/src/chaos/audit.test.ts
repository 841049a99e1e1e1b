import { audit, targetsMet, type AuditInput } from './audit';

const base: AuditInput = {
  messages: 4,
  acceptedIds: ['em_a', 'em_b', 'em_c'],
  storedEmailIds: ['em_a', 'em_b', 'em_c'],
  refused: 0,
  abandoned: 1,
  answers: { '202': 3, '503': 2, network_error: 5 },
  serverErrorSamples: [],
  receipts: [],
  faults: [
    { kind: 'kill-daemon', at: 10_000 },
    { kind: 'pg-restart', at: 20_000 },
    { kind: 'redis-flushall', at: 30_000 },
  ],
  daemonCrashes: [],
  deliveryStatuses: { accepted: 3 },
  attempts: { 'accepted/none': 3 },
  drainedAt: 75_000,
  originAt: 0,
};

describe('the chaos audit', () => {
  it('counts delivered, undelivered and extra copies by accepted email id', () => {
    const summary = audit({
      ...base,
      receipts: [
        { emailId: 'em_a', at: 1_000 },
        { emailId: 'em_a', at: 40_000 },
        { emailId: 'em_b', at: 2_000 },
        { emailId: 'em_zzz', at: 3_000 },
        { emailId: null, at: 4_000 },
      ],
    });
    expect(summary).toMatchObject({ accepted: 3, delivered: 2, undelivered: 1, duplicates: 1, unknown_at_sinks: 2, abandoned: 1 });
  });

  it('puts each extra copy down to the last fault before the copy it repeats', () => {
    const summary = audit({
      ...base,
      receipts: [
        // Copy 1 at 12 s, after the daemon kill at 10 s and before the crash at 20 s.
        { emailId: 'em_a', at: 12_000 },
        { emailId: 'em_a', at: 50_000 },
        // Copy 1 at 25 s: after the PostgreSQL crash.
        { emailId: 'em_b', at: 25_000 },
        { emailId: 'em_b', at: 55_000 },
        // Copy 1 at 1 s, before any fault; copy 2 at 31 s, after the FLUSHALL; then a third copy.
        { emailId: 'em_c', at: 1_000 },
        { emailId: 'em_c', at: 31_000 },
        { emailId: 'em_c', at: 60_000 },
      ],
    });
    expect(summary.duplicates).toBe(4);
    expect(summary.duplicates_by_fault).toEqual([
      { kind: 'kill-daemon', at_s: 10, copies: 1 },
      { kind: 'pg-restart', at_s: 20, copies: 1 },
      { kind: 'redis-flushall', at_s: 30, copies: 1 },
    ]);
    expect(summary.duplicates_before_any_fault).toBe(1);
    expect(summary.duplicates_by_kind).toEqual({ 'kill-daemon': 1, 'pg-restart': 1, 'redis-flushall': 1 });
    expect(summary.duplicate_samples).toContainEqual({ email_id: 'em_c', copies_at_s: [1, 31, 60] });
    // em_a: daemon killed at 10 s, sent again at 50 s.
    expect(summary.takeover_after_daemon_death_s).toEqual({ median: 40, max: 40 });
    expect(summary.undelivered).toBe(0);
  });

  it('judges no copy from a failover as a target', () => {
    const faults = [{ kind: 'redis-failover' as const, at: 20_000, endedAt: 27_000 }];
    const receipts = (firstAt: number) => [
      { emailId: 'em_a', at: firstAt },
      { emailId: 'em_a', at: 70_000 },
    ];
    const after = audit({ ...base, faults, receipts: receipts(22_000) });
    expect(after.duplicates_by_kind).toEqual({ 'redis-failover': 1 });
    expect(targetsMet(after, { drainSeconds: 120, duplicatesPerKill: 5 }).failover_duplicates).toBe(false);
    expect(targetsMet(audit({ ...base, faults, receipts: receipts(15_000) }), { drainSeconds: 120, duplicatesPerKill: 5 }).failover_duplicates).toBe(true);
  });

  it('counts a copy the sink read just before a kill was sent as after it', () => {
    const receipts = (firstAt: number) => [
      { emailId: 'em_a', at: firstAt },
      { emailId: 'em_a', at: 70_000 },
    ];
    expect(audit({ ...base, receipts: receipts(9_400) }).duplicates_by_kind['kill-daemon']).toBe(1);
    expect(audit({ ...base, receipts: receipts(8_500) }).duplicates_before_any_fault).toBe(1);
  });

  it('puts a duplicate down to a daemon that crashed by itself', () => {
    const receipts = [
      { emailId: 'em_a', at: 38_500 },
      { emailId: 'em_a', at: 80_000 },
    ];
    expect(audit({ ...base, receipts }).duplicates_by_kind['redis-flushall']).toBe(1);
    const crashed = audit({ ...base, receipts, daemonCrashes: [38_000] });
    expect(crashed.duplicates_by_kind).toMatchObject({ 'daemon-crash': 1, 'redis-flushall': 0 });
    expect(crashed.duplicates_per_daemon_death).toBe(0.5);
  });

  it('counts 5xx answers other than 503, keeps a few samples, and finds emails no 2xx named', () => {
    const summary = audit({
      ...base,
      answers: { '202': 3, '500': 2, '502': 1, '503': 7, '429': 1 },
      serverErrorSamples: Array.from({ length: 9 }, (_, i) => `500 sample ${i}`),
      storedEmailIds: ['em_a', 'em_b', 'em_c', 'em_twice'],
    });
    expect(summary.server_errors_other_than_503).toBe(3);
    expect(summary.server_error_samples).toHaveLength(5);
    expect(summary.stored_not_accepted).toBe(1);
  });

  it('measures the drain from the last fault, and judges the targets', () => {
    const receipts = ['em_a', 'em_b', 'em_c'].map((emailId) => ({ emailId, at: 1_000 }));
    const drained = audit({ ...base, receipts });
    expect(drained.drain_seconds).toBe(45);
    expect(targetsMet(drained, { drainSeconds: 120, duplicatesPerKill: 5 })).toEqual({ undelivered: true, server_errors: true, drain: true, duplicates_per_kill: true, failover_duplicates: true });
    expect(targetsMet(drained, { drainSeconds: 30, duplicatesPerKill: 5 }).drain).toBe(false);

    const stuck = audit({ ...base, receipts: receipts.slice(1), drainedAt: null, answers: { '500': 1 } });
    expect(stuck.drain_seconds).toBeNull();
    expect(targetsMet(stuck, { drainSeconds: 120, duplicatesPerKill: 5 })).toEqual({ undelivered: false, server_errors: false, drain: false, duplicates_per_kill: true, failover_duplicates: true });
  });

  it('counts the copies put down to daemon deaths per death, kills and crashes alike', () => {
    // Two deaths: the kill at 10 s and a crash at 50 s; three copies sent again after them.
    const receipts = [
      { emailId: 'em_a', at: 11_000 },
      { emailId: 'em_a', at: 25_000 },
      { emailId: 'em_b', at: 11_500 },
      { emailId: 'em_b', at: 26_000 },
      { emailId: 'em_c', at: 50_500 },
      { emailId: 'em_c', at: 60_000 },
    ];
    const summary = audit({ ...base, receipts, daemonCrashes: [50_000] });
    expect(summary).toMatchObject({ daemon_deaths: 2, duplicates_per_daemon_death: 1.5 });
    expect(summary.duplicates_by_fault.filter((f) => f.copies > 0)).toEqual([
      { kind: 'kill-daemon', at_s: 10, copies: 2 },
      { kind: 'daemon-crash', at_s: 50, copies: 1 },
    ]);
    expect(targetsMet(summary, { drainSeconds: 120, duplicatesPerKill: 1 }).duplicates_per_kill).toBe(false);
    expect(audit({ ...base, faults: [] }).duplicates_per_daemon_death).toBeNull();
  });
});
