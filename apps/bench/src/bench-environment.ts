import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { endProcess, freePort } from '@mailer/testing';
import path from 'node:path';
import { withDatabase, type Config } from '@mailer/config';
import { migrateDatabase, openDatabase, type DatabaseHandle } from '@mailer/db';
import { openRedis } from '@mailer/queue';

export const BENCH_DATABASE = 'mailer_bench';
export const BENCH_REDIS_PREFIX = 'mailer_bench';
/** This checkout; another built one (`npm ci && npx tsc -b` there) can be run instead, for comparisons (compare-builds.ts). */
export const THIS_CHECKOUT = path.resolve(__dirname, '../../..');
const apiMain = (checkout = THIS_CHECKOUT) => path.join(checkout, 'apps/api/dist/main.js');
const workerMain = (checkout = THIS_CHECKOUT) => path.join(checkout, 'apps/worker/dist/main.js');

/** The configured cluster's URL for the given database. */
export function databaseUrlFor(config: Config, name: string): string {
  return withDatabase(config.databaseUrl, name);
}

/**
 * A fresh, migrated benchmark database (dropped first if a previous run left one); `migrate`
 * is the migrator of the build that will use it (this one's unless given).
 */
export async function freshDatabase(config: Config, name = BENCH_DATABASE, migrate: (url: string) => Promise<unknown> = migrateDatabase): Promise<string> {
  const admin = openDatabase(databaseUrlFor(config, 'postgres'), 1);
  try {
    await admin.db`drop database if exists ${admin.db(name)} with (force)`;
  } finally {
    await admin.close();
  }
  const url = databaseUrlFor(config, name);
  await migrate(url);
  return url;
}

/** Deletes the benchmark's Redis keys: the jobs it enqueued (no worker runs during intake). */
export async function clearRedisPrefix(config: Config, prefix = BENCH_REDIS_PREFIX): Promise<void> {
  const redis = openRedis(config.redis, 'worker');
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
  /** SIGKILL: the process dies at once, mid-request (the chaos run's crash). */
  kill(): Promise<void>;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<void>;
}

/** What a built API or daemon process needs to run as in production against the bench's database and Redis prefix. */
export function productionEnv(config: Config, databaseUrl: string, encryptionKey: Buffer, redisPrefix: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    // Node's own flags pass through, e.g. --perf-basic-prof-only-functions for `perf` (BENCHMARKS.md, "Where a delivery's CPU goes").
    NODE_OPTIONS: process.env.NODE_OPTIONS,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    // Production refuses a HELO name that is not fully qualified (a bench machine's own name may not be).
    SMTP_HELO_NAME: 'bench.mailer.test',
    ENCRYPTION_KEY: encryptionKey.toString('base64'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: config.redis.url,
    REDIS_SENTINELS: config.redis.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
    REDIS_SENTINEL_MASTER: config.redis.sentinelMaster,
    REDIS_PREFIX: redisPrefix,
  };
}

export interface StartApiOptions {
  cpuProfileDir?: string;
  redisPrefix?: string;
  /** The key every API and daemon of a run shares (a fresh one unless given). */
  encryptionKey?: Buffer;
  /** A free port unless given (a restarted API keeps its port). */
  port?: number;
  /** How long it may take to answer /readyz with 200. */
  readyTimeoutMs?: number;
  /** Where its stdout and stderr go (a file descriptor); the benchmark's own unless given. */
  outputFd?: number;
  /** The built checkout whose API runs (this one unless given). */
  checkout?: string;
}

/** The built API as production runs it (NODE_ENV=production, warn-level logs), in a child process. */
export async function startApi(config: Config, databaseUrl: string, options: StartApiOptions = {}): Promise<ApiProcess> {
  const port = options.port ?? (await freePort());
  const encryptionKey = options.encryptionKey ?? randomBytes(32);
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []), apiMain(options.checkout)],
    {
      env: {
        ...productionEnv(config, databaseUrl, encryptionKey, options.redisPrefix ?? BENCH_REDIS_PREFIX),
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', options.outputFd ?? 'inherit', options.outputFd ?? 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const readyBy = Date.now() + (options.readyTimeoutMs ?? 10_000);
  for (;;) {
    const up = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > readyBy || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('the API did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl, pid: child.pid!, encryptionKey, stop: () => endProcess(child, 'SIGTERM'), kill: () => endProcess(child, 'SIGKILL'), exited };
}

export interface WorkerOptions {
  redisPrefix: string;
  /** The loopback DNS server that names the sinks (host:port). */
  dnsServer: string;
  /** The port every sink listens on (SMTP_PORT). */
  smtpPort: number;
  cpuProfileDir?: string;
  /** Where its stdout and stderr go (a file descriptor); the benchmark's own unless given. */
  outputFd?: number;
  /** The built checkout whose daemon runs (this one unless given). */
  checkout?: string;
  /** Its DELIVERY_JOURNAL_FILE, kept across its restarts (a fresh one of its own unless given: daemons never share one). */
  journalFile?: string;
}

/**
 * The built delivery daemon as production runs it, delivering to loopback sinks through a
 * test DNS server; WORKER_*, DESTINATION_*, COMPOSITION_THREADS, DATABASE_POOL_SIZE and
 * SMTP_POOL_IDLE pass through from the environment.
 */
export function startWorker(config: Config, databaseUrl: string, encryptionKey: Buffer, options: WorkerOptions): ChildProcess {
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  return spawn(process.execPath, [...profile, workerMain(options.checkout)], {
    env: {
      ...productionEnv(config, databaseUrl, encryptionKey, options.redisPrefix),
      DNS_SERVERS: options.dnsServer,
      SMTP_PORT: String(options.smtpPort),
      SMTP_HELO_NAME: 'worker.bench.test',
      ALLOW_PRIVATE_MX: 'true',
      // The benchmark's webhook receiver listens on loopback, over http.
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKER_METRICS_PORT: '0',
      DELIVERY_JOURNAL_FILE: options.journalFile ?? path.join(mkdtempSync(path.join(tmpdir(), 'mailer-bench-journal-')), 'delivery-journal.jsonl'),
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(WORKER_|DESTINATION_|COMPOSITION_THREADS|DATABASE_POOL_SIZE|SMTP_POOL_IDLE|SMTP_CONNECT_TIMEOUT)/.test(k))),
    },
    stdio: ['ignore', options.outputFd ?? 'inherit', options.outputFd ?? 'inherit'],
  });
}

/** A fresh bench database and the built API on it, with a pool of the benchmark's own for its set-up. */
export async function prepareBenchApi(config: Config, { cpuProfile }: { cpuProfile: boolean }): Promise<{ databaseUrl: string; api: ApiProcess; database: DatabaseHandle }> {
  console.log('preparing the benchmark database and the API (production build)…');
  const databaseUrl = await freshDatabase(config);
  await clearRedisPrefix(config);
  const api = await startApi(config, databaseUrl, cpuProfile ? { cpuProfileDir: 'bench-results' } : {});
  return { databaseUrl, api, database: openDatabase(databaseUrl, 2) };
}
