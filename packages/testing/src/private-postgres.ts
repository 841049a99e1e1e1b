import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * A PostgreSQL of a test's or chaos run's own (initdb into a temporary directory, free
 * ports), which it may crash or fail over: never the shared cluster others test on. With a
 * standby, a second server streams from the primary (pg_basebackup), synchronously: a commit
 * the primary acknowledged is on the standby too, so a failover loses no accepted message.
 * initdb refuses root, so as root the clusters belong to the `postgres` user.
 */
export interface PrivatePostgres {
  /** postgres:// naming the primary, then the standby when there is one. */
  url: string;
  /** The current primary: `pg_ctl restart -m immediate`, a crash with recovery at start. */
  crashRestart(): Promise<void>;
  /**
   * The primary stopped with `-m immediate` (its processes killed), the standby promoted, then
   * a new standby of it made where the old primary was; resolves once it streams again.
   */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

interface Server {
  port: number;
  data: string;
}

function postgresBin(program: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin', program)).find((p) => existsSync(p));
  if (!found) throw new Error(`${program} not found under ${root}/*/bin`);
  return found;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program as the clusters' owner. */
function pg(program: string, args: string[]): Promise<{ stdout: string }> {
  return asRoot ? run('runuser', ['-u', 'postgres', '--', postgresBin(program), ...args]) : run(postgresBin(program), args);
}

export async function startPrivatePostgres(options: { standby?: boolean } = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailer-pg-'));
  if (asRoot) {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    chownSync(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const servers: Server[] = [{ port: await freePort(), data: path.join(dir, 'a') }];
  if (options.standby) servers.push({ port: await freePort(), data: path.join(dir, 'b') });
  let primary = 0;
  // fsync off: the faults kill server processes, never the machine, so the OS page cache
  // survives them. Synchronous replication only with a standby to wait for.
  const settings = (server: Server) =>
    [
      `-p ${server.port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
      // pg_ctl hands these to a shell: the quotes keep `*` from being expanded.
      options.standby ? `-c synchronous_standby_names='*'` : '',
    ].join(' ');
  const start = (server: Server) =>
    pg('pg_ctl', ['start', '-w', '-D', server.data, '-l', `${server.data}.log`, '-o', settings(server)]);
  const makeStandby = async (server: Server, of: Server) => {
    rmSync(server.data, { recursive: true, force: true });
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(of.port), '-U', 'postgres', '-D', server.data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    await start(server);
  };
  await pg('initdb', ['-D', servers[0]!.data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  await start(servers[0]!);
  if (servers[1]) await makeStandby(servers[1], servers[0]!);
  return {
    url: `postgres://postgres@${servers.map((s) => `127.0.0.1:${s.port}`).join(',')}/postgres`,
    async crashRestart() {
      const server = servers[primary]!;
      await pg('pg_ctl', ['restart', '-m', 'immediate', '-w', '-D', server.data, '-l', `${server.data}.log`, '-o', settings(server)]);
    },
    async failover() {
      if (servers.length < 2) throw new Error('no standby to fail over to');
      const old = servers[primary]!;
      const promoted = servers[1 - primary]!;
      await pg('pg_ctl', ['stop', '-m', 'immediate', '-D', old.data]);
      await pg('pg_ctl', ['promote', '-w', '-D', promoted.data]);
      primary = 1 - primary;
      await makeStandby(old, promoted);
    },
    async stop() {
      await Promise.all(servers.map((s) => pg('pg_ctl', ['stop', '-m', 'immediate', '-D', s.data]).catch(() => undefined)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
