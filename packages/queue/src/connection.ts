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
