import { parseDuration } from '@mailer/config';

export const FAULT_KINDS = ['kill-daemon', 'kill-api', 'redis-flushall', 'redis-restart', 'pg-restart', 'pg-failover', 'redis-failover'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault, `atMs` after the load started. */
export interface Fault {
  atMs: number;
  kind: FaultKind;
}

/**
 * The faults of `FAULTS`: comma-separated `<duration> <kind>` entries such as
 * `10s kill-daemon, 25s pg-restart`, in any order; returned in time order.
 */
export function parseTimeline(text: string): Fault[] {
  const faults = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [at, kind, ...rest] = entry.split(/\s+/);
      const atMs = parseDuration(at ?? '');
      if (atMs === undefined || rest.length > 0 || !FAULT_KINDS.includes(kind as FaultKind)) {
        throw new Error(`FAULTS: "${entry}" is not "<duration> <kind>" with a kind among ${FAULT_KINDS.join(', ')}`);
      }
      return { atMs, kind: kind as FaultKind };
    });
  return faults.sort((a, b) => a.atMs - b.atMs);
}

/**
 * `rounds` rounds of every fault kind, evenly spaced over the load's first `loadMs` and
 * none in its last tenth, so that the last fault still meets traffic.
 */
export function defaultTimeline(loadMs: number, rounds: number): Fault[] {
  const count = rounds * FAULT_KINDS.length;
  const step = (loadMs * 0.9) / (count + 1);
  return Array.from({ length: count }, (_, i) => ({ atMs: Math.round(step * (i + 1)), kind: FAULT_KINDS[i % FAULT_KINDS.length]! }));
}

/** `12.5s kill-daemon, 25s pg-restart`: the form parseTimeline reads. */
export function formatTimeline(faults: Fault[]): string {
  return faults.map((f) => `${+(f.atMs / 1000).toFixed(1)}s ${f.kind}`).join(', ');
}
