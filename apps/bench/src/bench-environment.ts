import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from '@mailer/testing';
import path from 'node:path';
import postgres from 'postgres';
import type { Config } from '@mailer/config';
import { migrateDatabase } from '@mailer/db';
import { openRedis } from '@mailer/queue';

export const BENCH_DATABASE = 'mailer_bench';
export const BENCH_REDIS_PREFIX = 'mailer_bench';
const API_MAIN = path.resolve(__dirname, '../../api/dist/main.js');

/** The configured cluster's URL for the given database. */
export function databaseUrlFor(config: Config, name: string): string {
  const url = new URL(config.databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh, migrated benchmark database (dropped first if a previous run left one). */
export async function freshDatabase(config: Config, name = BENCH_DATABASE): Promise<string> {
  const admin = postgres(databaseUrlFor(config, 'postgres'), { max: 1, onnotice: () => undefined });
  try {
    await admin`drop database if exists ${admin(name)} with (force)`;
  } finally {
    await admin.end();
  }
  const url = databaseUrlFor(config, name);
  await migrateDatabase(url);
  return url;
}

/** Deletes the benchmark's Redis keys: the jobs it enqueued (no worker runs during intake). */
export async function clearRedisPrefix(config: Config, prefix = BENCH_REDIS_PREFIX): Promise<void> {
  const redis = openRedis(config.redisUrl, 'worker');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  encryptionKey: Buffer;
  stop(): Promise<void>;
}

/** What a built API or daemon process needs to run as in production against the bench's database and Redis prefix. */
export function productionEnv(config: Config, databaseUrl: string, encryptionKey: Buffer, redisPrefix: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ENCRYPTION_KEY: encryptionKey.toString('base64'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: redisPrefix,
  };
}

/** The built API as production runs it (NODE_ENV=production, warn-level logs), in a child process. */
export async function startApi(config: Config, databaseUrl: string, options: { cpuProfileDir?: string; redisPrefix?: string } = {}): Promise<ApiProcess> {
  const port = await freePort();
  const encryptionKey = randomBytes(32);
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []), API_MAIN],
    {
      env: {
        ...productionEnv(config, databaseUrl, encryptionKey, options.redisPrefix ?? BENCH_REDIS_PREFIX),
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error('the API did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    pid: child.pid!,
    encryptionKey,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
