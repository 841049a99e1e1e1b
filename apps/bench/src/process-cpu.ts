import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a /proc stat line, in seconds. */
function statSeconds(stat: string): number {
  // Fields after the command name, which may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * V8's sampling thread under --cpu-prof: it spins while the profiler runs, so counting it would
 * make a profiled process never look quiet and add the profiler's cost to the service's.
 */
const PROFILER_THREAD = 'v8:ProfEvntProc';

/** CPU seconds (user and system, every thread but the profiler's) a process has used so far; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    let seconds = statSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === PROFILER_THREAD) seconds -= statSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      } catch {
        // The thread ended meanwhile.
      }
    }
    return seconds;
  } catch {
    return undefined;
  }
}

/** The processes whose /proc/<pid>/`file` passes `test` (a process gone meanwhile does not). */
function processesWhere(file: 'cmdline' | 'comm', test: (content: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return test(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The PostgreSQL backends serving `database`: their process titles name it (after the cluster's name, when it has one). */
export function backendsOf(database: string): number[] {
  return processesWhere('cmdline', (title) => title.startsWith('postgres: ') && title.includes(` ${database} `));
}

/** The machine's Redis servers (the service shares one with nothing else while a benchmark runs). */
export function redisServers(): number[] {
  return processesWhere('comm', (name) => name.trim() === 'redis-server');
}

/** Processes by role (their pids read afresh at each reading: pools open and close backends). */
export type Roles = Record<string, () => number[]>;

/** CPU seconds per process of each role, read now. */
export type CpuReading = Record<string, Map<number, number>>;

export function readCpu(roles: Roles): CpuReading {
  return Object.fromEntries(
    Object.entries(roles).map(([role, pids]) => [
      role,
      new Map(
        pids().flatMap((pid) => {
          const seconds = cpuSeconds(pid);
          return seconds === undefined ? [] : [[pid, seconds] as const];
        }),
      ),
    ]),
  );
}

/**
 * CPU seconds each role used between two readings: a process that started in between counts
 * whole; one that ended in between is lost (the service's processes and pooled backends
 * live through a run).
 */
export function cpuBetween(before: CpuReading, after: CpuReading): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([role, now]) => [role, [...now].reduce((total, [pid, seconds]) => total + seconds - (before[role]?.get(pid) ?? 0), 0)]),
  );
}
