import { loadConfig } from '@mailer/config';
import type { Database } from '@mailer/operations';
import { createDnsResolver, type DnsResolver } from '@mailer/dns';
import { createDeliveryQueue, openRedis, readDestinationSnapshots, requestDestinationLift, waitForRedis, type DeliveryQueue, type Redis } from '@mailer/queue';
import { testRedisPrefix } from '@mailer/testing';
import { runCli } from '../program';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

export interface TestCli {
  run(...argv: string[]): Promise<CliRun>;
  /** The queue the CLI enqueues to (opened on first use), for assertions. */
  deliveryQueue(): Promise<DeliveryQueue>;
  close(): Promise<void>;
}

/**
 * The CLI in-process against a test database, with real Redis (its own key prefix, or the
 * one given) and a real resolver (the given DNS servers), both opened only when a command needs them;
 * ENCRYPTION_KEY is the development key and the environment empty.
 */
export function startTestCli(db: Database, options: { redisPrefix?: string; dnsServers?: string[] } = {}): TestCli {
  let redis: Redis | undefined;
  let queue: DeliveryQueue | undefined;
  let dns: DnsResolver | undefined;
  const prefix = options.redisPrefix ?? testRedisPrefix();
  const connected = async () => {
    redis ??= openRedis({ url: 'redis://127.0.0.1:6379' }, 'producer');
    await waitForRedis(redis);
    return redis;
  };
  const deliveryQueue = async () => (queue ??= createDeliveryQueue(await connected(), prefix));
  return {
    deliveryQueue,
    async run(...argv) {
      let stdout = '';
      let stderr = '';
      const status = await runCli(argv, {
        db,
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        deliveryQueue,
        destinationSnapshots: async () => readDestinationSnapshots(await connected(), prefix),
        requestLift: async (destination, at) => requestDestinationLift(await connected(), prefix, destination, at),
        dns: () => (dns ??= createDnsResolver({ servers: options.dnsServers ?? [], timeoutMs: 500 })),
        encryptionKey: loadConfig({}).encryptionKey,
        returnPath: loadConfig({}).returnPath,
        env: {},
        now: () => new Date(),
      });
      return { status, stdout, stderr };
    },
    async close() {
      await queue?.close();
      redis?.disconnect();
    },
  };
}
