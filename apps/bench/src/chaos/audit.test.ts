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
  attributionWindowMs: 5_000,
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

  it('puts a duplicate down to a daemon kill or a database crash right after the copy before it, else unexplained', () => {
    const summary = audit({
      ...base,
      receipts: [
        // Copy 1 at 9 s, daemon killed at 10 s: its attempt died unrecorded (the final-dot case).
        { emailId: 'em_a', at: 9_000 },
        { emailId: 'em_a', at: 50_000 },
        // Copy 1 at 17 s, PostgreSQL crashed at 20 s: the attempt could not be recorded.
        { emailId: 'em_b', at: 17_000 },
        { emailId: 'em_b', at: 55_000 },
        // Copy 1 at 1 s: no fault within 5 s after it; then a third copy.
        { emailId: 'em_c', at: 1_000 },
        { emailId: 'em_c', at: 12_000 },
        { emailId: 'em_c', at: 60_000 },
      ],
    });
    // em_c's second copy (12 s) came 8 s before the crash, outside the window.
    expect(summary.duplicate_causes).toEqual({ daemon_killed: 1, database_restarted: 1, unexplained: 2 });
    expect(summary.duplicates).toBe(4);
    expect(summary.unexplained_duplicate_samples).toEqual([{ email_id: 'em_c', copies_at_s: [1, 12, 60] }]);
    // em_a: daemon killed at 10 s, sent again at 50 s.
    expect(summary.takeover_after_daemon_death_s).toEqual({ median: 40, max: 40 });
    expect(summary.undelivered).toBe(0);
  });

  it('puts a duplicate down to a PostgreSQL failover when the copy before it was sent before the failover ended', () => {
    const faults = [{ kind: 'pg-failover' as const, at: 20_000, endedAt: 35_000 }];
    const receipts = (firstAt: number) => [
      { emailId: 'em_a', at: firstAt },
      { emailId: 'em_a', at: 70_000 },
    ];
    expect(audit({ ...base, faults, receipts: receipts(16_000) }).duplicate_causes.database_restarted).toBe(1);
    expect(audit({ ...base, faults, receipts: receipts(34_000) }).duplicate_causes.database_restarted).toBe(1);
    expect(audit({ ...base, faults, receipts: receipts(40_000) }).duplicate_causes.unexplained).toBe(1);
  });

  it('counts a copy the sink read just after a kill was sent as sent before it', () => {
    const receipts = (firstAt: number) => [
      { emailId: 'em_a', at: firstAt },
      { emailId: 'em_a', at: 70_000 },
    ];
    expect(audit({ ...base, receipts: receipts(10_400) }).duplicate_causes.daemon_killed).toBe(1);
    expect(audit({ ...base, receipts: receipts(11_500) }).duplicate_causes.unexplained).toBe(1);
  });

  it('puts a duplicate down to a daemon that crashed by itself as to one that was killed', () => {
    const receipts = [
      { emailId: 'em_a', at: 36_000 },
      { emailId: 'em_a', at: 80_000 },
    ];
    expect(audit({ ...base, receipts }).duplicate_causes.unexplained).toBe(1);
    expect(audit({ ...base, receipts, daemonCrashes: [38_000] }).duplicate_causes.daemon_killed).toBe(1);
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
    expect(targetsMet(drained, { drainSeconds: 120, duplicatesPerKill: 5 })).toEqual({ undelivered: true, server_errors: true, drain: true, duplicates_per_kill: true });
    expect(targetsMet(drained, { drainSeconds: 30, duplicatesPerKill: 5 }).drain).toBe(false);

    const stuck = audit({ ...base, receipts: receipts.slice(1), drainedAt: null, answers: { '500': 1 } });
    expect(stuck.drain_seconds).toBeNull();
    expect(targetsMet(stuck, { drainSeconds: 120, duplicatesPerKill: 5 })).toEqual({ undelivered: false, server_errors: false, drain: false, duplicates_per_kill: true });
  });

  it('counts the copies put down to daemon deaths per death, kills and crashes alike', () => {
    // Two deaths: the kill at 10 s and a crash at 50 s; three copies sent again after them.
    const receipts = [
      { emailId: 'em_a', at: 9_000 },
      { emailId: 'em_a', at: 25_000 },
      { emailId: 'em_b', at: 9_500 },
      { emailId: 'em_b', at: 26_000 },
      { emailId: 'em_c', at: 49_000 },
      { emailId: 'em_c', at: 60_000 },
    ];
    const summary = audit({ ...base, receipts, daemonCrashes: [50_000] });
    expect(summary).toMatchObject({ daemon_deaths: 2, duplicates_per_daemon_death: 1.5 });
    expect(summary.duplicates_by_daemon_death).toEqual([
      { at_s: 10, copies: 2 },
      { at_s: 50, copies: 1 },
    ]);
    expect(targetsMet(summary, { drainSeconds: 120, duplicatesPerKill: 1 }).duplicates_per_kill).toBe(false);
    expect(audit({ ...base, faults: [] }).duplicates_per_daemon_death).toBeNull();
  });
});
