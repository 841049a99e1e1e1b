import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Database } from '@mailer/db';

/** The local TCP ports of a process's sockets: its socket descriptors' inodes, found in /proc/net/tcp(6). */
function localPorts(pid: number): Set<number> {
  // A descriptor may close between the listing and its reading.
  const link = (fd: string) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return '';
    }
  };
  const inodes = new Set(readdirSync(`/proc/${pid}/fd`).flatMap((fd) => /^socket:\[(\d+)\]$/.exec(link(fd))?.[1] ?? []));
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

export interface LockWaits {
  /** Samples of the process's database sessions in a transaction or a statement. */
  busy: number;
  /** Of those, the samples waiting on a lock. */
  waiting: number;
}

/**
 * Samples, every `everyMs` until stopped, the PostgreSQL sessions of process `pid` on `database`
 * (pg_stat_activity, matched by their client ports): how often they are busy, and how often they
 * wait on a lock meanwhile.
 */
export function sampleLockWaits(db: Database, database: string, pid: number, everyMs = 200): { stop(): Promise<LockWaits> } {
  const counts: LockWaits = { busy: 0, waiting: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const ports = localPorts(pid);
      const sessions = await db`
        select client_port, wait_event_type from pg_stat_activity
         where datname = ${database} and state <> 'idle' and client_port = any(${[...ports]}::int[])`;
      counts.busy += sessions.length;
      counts.waiting += sessions.filter((s) => s.wait_event_type === 'Lock').length;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return counts;
    },
  };
}
