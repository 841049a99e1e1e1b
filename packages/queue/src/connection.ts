import IORedis, { type Redis } from 'ioredis';

/**
 * Producers fail fast while Redis is away (the API keeps accepting and the reconciler
 * enqueues later); workers block and reconnect (BullMQ requires maxRetriesPerRequest: null).
 */
export function openRedis(url: string, role: 'producer' | 'worker'): Redis {
  return new IORedis(url, role === 'producer'
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, lazyConnect: false }
    : { maxRetriesPerRequest: null });
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
