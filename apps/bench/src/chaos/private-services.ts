import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@mailer/testing';
import { endProcess } from '../bench-environment';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A PostgreSQL cluster of the chaos run's own (initdb into a temporary directory, a free
 * port): the run crashes it, which it must never do to the shared cluster others test on.
 * initdb refuses root, so as root the cluster belongs to the `postgres` user.
 */
export interface PrivatePostgres {
  url: string;
  /** `pg_ctl restart -m immediate`: a crash (no checkpoint, recovery at start), then up again. */
  crashRestart(): Promise<void>;
  stop(): Promise<void>;
}

function postgresBin(program: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin', program)).find((p) => existsSync(p));
  if (!found) throw new Error(`${program} not found under ${root}/*/bin`);
  return found;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program as the cluster's owner. */
function pg(program: string, args: string[]): Promise<{ stdout: string }> {
  return asRoot ? run('runuser', ['-u', 'postgres', '--', postgresBin(program), ...args]) : run(postgresBin(program), args);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailer-chaos-pg-'));
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  // fsync off: the run crashes the server process, never the machine, so the OS page cache survives every crash.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`;
  await pg('pg_ctl', ['start', '-w', '-D', data, '-l', path.join(dir, 'server.log'), '-o', options]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crashRestart() {
      await pg('pg_ctl', ['restart', '-m', 'immediate', '-w', '-D', data, '-l', path.join(dir, 'server.log'), '-o', options]);
    },
    async stop() {
      await pg('pg_ctl', ['stop', '-m', 'immediate', '-D', data]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** A redis-server of the run's own, without persistence: a restart comes back empty. */
export interface PrivateRedis {
  url: string;
  flushAll(): Promise<void>;
  /** Kills the server (SIGKILL) and starts a new, empty one on the same port after `downMs`. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; ; i++) {
      const up = await run('redis-cli', ['-p', String(port), 'ping']).then(({ stdout }) => stdout.trim() === 'PONG', () => false);
      if (up) return;
      if (i > 100 || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
      await sleep(100);
    }
  };
  const kill = () => endProcess(child, 'SIGKILL');
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    flushAll: async () => void (await run('redis-cli', ['-p', String(port), 'flushall'])),
    async restart(downMs) {
      await kill();
      await sleep(downMs);
      await start();
    },
    stop: kill,
  };
}
