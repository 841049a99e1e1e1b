import IORedis, { type Redis, type RedisOptions } from 'ioredis';

/**
 * Where Redis is: REDIS_URL, or the master that Sentinels name, the URL then giving only
 * credentials and database (docs/api-decisions.md, "Running several machines").
 */
export interface RedisTarget {
  url: string;
  sentinels?: readonly { host: string; port: number }[];
  sentinelMaster?: string;
}

/**
 * Producers fail fast while Redis is away (the API keeps accepting and the reconciler
 * enqueues later); workers block and reconnect (BullMQ requires maxRetriesPerRequest: null).
 */
export function openRedis(target: RedisTarget, role: 'producer' | 'worker'): Redis {
  const roleOptions: RedisOptions = role === 'producer'
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, lazyConnect: false }
    : { maxRetriesPerRequest: null };
  const sentinel: RedisOptions = target.sentinels?.length
    ? {
        sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
        name: target.sentinelMaster ?? 'mailer',
        // A master demoted while our connection to it stays up is noticed from the
        // Sentinels' +switch-master, not only from a dropped connection.
        failoverDetector: true,
      }
    : {};
  return new IORedis(target.url, {
    ...roleOptions,
    ...sentinel,
    // A write that reaches a demoted master (a replica now) reconnects, through the
    // Sentinels to the new master, and is sent again there; BullMQ's blocking workers
    // otherwise stay on the replica for ever.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
  });
}

export type { Redis };

/** Resolves once the connection is ready; for one-shot tools (the CLI) that cannot fail fast on a connection still opening. */
export function waitForRedis(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis is not reachable (${redis.status})`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
