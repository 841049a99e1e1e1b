import type { Redis } from './connection';
import { SNAPSHOT_TTL_MS } from './destination-snapshots';

/**
 * An operator's lifts of destination suspensions (docs/api-decisions.md, "Queue operations"):
 * a suspension lives in each daemon's memory, so a lift is a request in Redis that every live
 * daemon applies when it next publishes its snapshot (every third of SNAPSHOT_TTL_MS). One hash,
 * destination key → when the lift was asked (epoch ms); it outlives the last request by two
 * snapshot periods, long enough for every live daemon to have read it.
 */
export const LIFT_TTL_MS = SNAPSHOT_TTL_MS * 2;

const key = (prefix: string) => `${prefix}:destination-lifts`;

export async function requestDestinationLift(redis: Redis, prefix: string, destination: string, at: Date): Promise<void> {
  await redis.multi().hset(key(prefix), destination, String(at.getTime())).pexpire(key(prefix), LIFT_TTL_MS).exec();
}

/** The lifts asked lately: destination key → when (epoch ms). */
export async function readDestinationLifts(redis: Redis, prefix: string): Promise<Map<string, number>> {
  const all = await redis.hgetall(key(prefix));
  return new Map(Object.entries(all).map(([destination, at]) => [destination, Number(at)]));
}
