import { loadConfig } from '@mailer/config';
import { createLogger } from '@mailer/logger';
import { openRedis, type Redis } from '@mailer/queue';
import { freePort, startTestDnsServer, startTestSmtpServer, TEST_CA_FILE, testRedisPrefix, type TestDnsServer, type TestSmtpServer, type TestSmtpServerOptions } from '@mailer/testing';
import { createTransportContext } from '../container';
import type { TransportContext } from '../delivery/smtp-transport';

/** The daemon's SMTP transport against real peers: a test DNS server, Redis, and SMTP peers sharing one port. */
export interface TransportHarness {
  dns: TestDnsServer;
  /** SMTP_PORT: every test MX listens on it, each on its own 127.0.0.x. */
  smtpPort: number;
  /**
   * A daemon's transport: the test CA as SMTP_CA_FILE, private MX addresses allowed, generous
   * timeouts and a Redis prefix of its own; `env` overrides any of it (daemons given the same
   * REDIS_PREFIX share their MTA-STS policy cache).
   */
  transport(env?: Record<string, string>): TransportContext;
  peer(host: string, options?: Omit<TestSmtpServerOptions, 'host' | 'port'>): Promise<TestSmtpServer>;
  /** Closes the transports' connections and the peers, and empties the DNS zone (after each test). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startTransportHarness(): Promise<TransportHarness> {
  const dns = await startTestDnsServer();
  const smtpPort = await freePort();
  const redis: Redis = openRedis(loadConfig({}).redis, 'producer');
  const peers: TestSmtpServer[] = [];
  const contexts: TransportContext[] = [];
  const logger = createLogger({ level: 'error', service: 'worker' });
  return {
    dns,
    smtpPort,
    transport(env = {}) {
      const config = loadConfig({
        DNS_SERVERS: dns.address,
        // Far beyond what a loaded machine takes to answer; the tests of timeouts set their own.
        DNS_TIMEOUT: '5s',
        SMTP_PORT: String(smtpPort),
        SMTP_HELO_NAME: 'worker.mailer.test',
        SMTP_CA_FILE: TEST_CA_FILE,
        ALLOW_PRIVATE_MX: 'true',
        SMTP_CONNECT_TIMEOUT: '10s',
        SMTP_COMMAND_TIMEOUT: '10s',
        SMTP_DATA_TIMEOUT: '10s',
        SMTP_POOL_IDLE: '500ms',
        REDIS_PREFIX: testRedisPrefix(),
        ...env,
      });
      const ctx = createTransportContext(config, redis, logger);
      contexts.push(ctx);
      return ctx;
    },
    async peer(host, options = {}) {
      const server = await startTestSmtpServer({ host, port: smtpPort, ...options });
      peers.push(server);
      return server;
    },
    async reset() {
      for (const ctx of contexts.splice(0)) ctx.pool.closeAll();
      await Promise.all(peers.splice(0).map((p) => p.close()));
      dns.reset();
    },
    async close() {
      redis.disconnect();
      await dns.close();
    },
  };
}
