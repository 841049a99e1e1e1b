import type { Redis } from './connection';

/** One destination as one daemon holds it (docs/api-decisions.md, "Scheduling"). */
export interface DestinationSnapshot {
  /** The destination key: its MX host set, sorted, or `provider:<name>`. */
  destination: string;
  /** Its name in metric labels, which never name a host: its provider's name, or destinationId of its key. */
  id: string;
  /** The provider it is (docs/api-decisions.md, "Providers and egress pools"); null for an MX host set of no provider. */
  provider: string | null;
  /** MX hosts its domains were routed to lately (at most a few dozen). */
  mxHosts: string[];
  /** Recipient domains routed to it lately (at most a few dozen). */
  domains: string[];
  /** Leased deliveries held in memory: waiting for a transaction, or in one. */
  held: number;
  /** SMTP transactions (connections in use) now. */
  inFlight: number;
  /** Transactions it may have at once now (adaptive, within the operator's limits). */
  concurrency: number;
  /** ISO time; null when not suspended. */
  suspendedUntil: string | null;
}

export interface DaemonSnapshot {
  daemon: string;
  at: string;
  destinations: DestinationSnapshot[];
}

/** A daemon's snapshot outlives it by this much at most: a stopped or killed daemon drops out of the listing. */
export const SNAPSHOT_TTL_MS = 15_000;

const key = (prefix: string, daemon: string) => `${prefix}:destinations:${daemon}`;

export async function publishDestinationSnapshot(redis: Redis, prefix: string, snapshot: DaemonSnapshot): Promise<void> {
  await redis.set(key(prefix, snapshot.daemon), JSON.stringify(snapshot), 'PX', SNAPSHOT_TTL_MS);
}

export async function removeDestinationSnapshot(redis: Redis, prefix: string, daemon: string): Promise<void> {
  await redis.del(key(prefix, daemon));
}

/** Every live daemon's latest snapshot. */
export async function readDestinationSnapshots(redis: Redis, prefix: string): Promise<DaemonSnapshot[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', key(prefix, '*'), 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as DaemonSnapshot);
}

/** One destination over every live daemon: held and in flight summed, concurrency summed, the latest suspension. */
export interface MergedDestination extends DestinationSnapshot {
  /** Daemons holding or remembering it. */
  daemons: number;
}

export function mergeDestinationSnapshots(daemons: readonly DaemonSnapshot[]): MergedDestination[] {
  const merged = new Map<string, MergedDestination>();
  for (const { destinations } of daemons) {
    for (const d of destinations) {
      const seen = merged.get(d.destination);
      if (!seen) {
        merged.set(d.destination, { ...d, domains: [...d.domains], mxHosts: [...d.mxHosts], daemons: 1 });
        continue;
      }
      seen.held += d.held;
      seen.inFlight += d.inFlight;
      seen.concurrency += d.concurrency;
      seen.daemons++;
      seen.domains = [...new Set([...seen.domains, ...d.domains])];
      seen.mxHosts = [...new Set([...seen.mxHosts, ...d.mxHosts])];
      if (d.suspendedUntil && (!seen.suspendedUntil || d.suspendedUntil > seen.suspendedUntil)) seen.suspendedUntil = d.suspendedUntil;
    }
  }
  return [...merged.values()];
}
