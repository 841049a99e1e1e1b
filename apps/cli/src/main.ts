import { ConfigError, loadConfig } from '@mailer/config';
import { openDatabase } from '@mailer/db';
import { createDnsResolver, type DnsResolver } from '@mailer/dns';
import { createDeliveryQueue, openRedis, readDestinationSnapshots, requestDestinationLift, waitForRedis, type DeliveryQueue, type Redis } from '@mailer/queue';
import { printError } from './output';
import { runCli } from './program';

/**
 * `npm run -s cli -- <command>` or `npx mailer <command>`: configuration from the environment (DATABASE_URL, …, and .env), one
 * command against the database, then the pool is closed so the process exits. The CLI
 * does not migrate: it expects a database `npm run migrate` (or `npm start`) has prepared.
 */
async function main(argv: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printError(process.stderr, argv.includes('--json'), { code: 'invalid_configuration', message: error.message });
    return 1;
  }
  const database = openDatabase(config.databaseUrl, 2);
  let redis: Redis | undefined;
  let queue: DeliveryQueue | undefined;
  let dns: DnsResolver | undefined;
  const connected = async () => {
    if (!redis) {
      redis = openRedis(config.redis, 'producer');
      redis.on('error', () => undefined);
    }
    await waitForRedis(redis);
    return redis;
  };
  try {
    return await runCli(argv, {
      db: database.db,
      stdout: process.stdout,
      stderr: process.stderr,
      deliveryQueue: async () => (queue ??= createDeliveryQueue(await connected(), config.redisPrefix)),
      destinationSnapshots: async () => readDestinationSnapshots(await connected(), config.redisPrefix),
      requestLift: async (destination, at) => requestDestinationLift(await connected(), config.redisPrefix, destination, at),
      dns: () => (dns ??= createDnsResolver(config.dns)),
      encryptionKey: config.encryptionKey,
      returnPath: config.returnPath,
      env: process.env,
      now: () => new Date(),
    });
  } finally {
    await queue?.close().catch(() => undefined);
    redis?.disconnect();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
