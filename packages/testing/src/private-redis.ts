import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { endProcess } from './end-process';
import { freePort } from './free-port';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The master name the Sentinels of a private Redis monitor. */
export const SENTINEL_MASTER = 'mailer';

/**
 * A redis-server of a test's or chaos run's own, without persistence: a restart comes back
 * empty. With `sentinels`, a replica and three Sentinels beside it, which promote the replica
 * when the master has not answered for `downAfterMs`.
 */
export interface PrivateRedis {
  /** The master's URL as it was at the start (with Sentinels, give them instead). */
  url: string;
  /** The Sentinels' addresses (empty without). */
  sentinels: { host: string; port: number }[];
  /** FLUSHALL on the current master. */
  flushAll(): Promise<void>;
  /** Kills the current master (SIGKILL) and starts a new, empty one on its port after `downMs`. */
  restart(downMs: number): Promise<void>;
  /**
   * Kills the current master and resolves once the Sentinels name the replica master; the
   * old master's port then comes back empty and the Sentinels make it the new replica.
   */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

interface Node {
  port: number;
  child?: ChildProcess;
}

const cli = (port: number, ...args: string[]) => run('redis-cli', ['-p', String(port), ...args]).then(({ stdout }) => stdout.trim());

async function waitFor(what: string, check: () => Promise<boolean>, child?: ChildProcess): Promise<void> {
  for (let i = 0; ; i++) {
    if (await check().catch(() => false)) return;
    if (i > 600 || (child && child.exitCode !== null)) throw new Error(`${what} did not happen`);
    await sleep(100);
  }
}

export async function startPrivateRedis(options: { sentinels?: boolean; downAfterMs?: number } = {}): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailer-redis-'));
  const nodes: Node[] = [{ port: await freePort() }];
  if (options.sentinels) nodes.push({ port: await freePort() });
  let master = 0;
  const start = async (node: Node, replicaOf?: Node) => {
    const args = ['--port', String(node.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--dbfilename', `${node.port}.rdb`];
    if (replicaOf) args.push('--replicaof', '127.0.0.1', String(replicaOf.port));
    node.child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitFor(`redis-server on port ${node.port}`, async () => (await cli(node.port, 'ping')) === 'PONG', node.child);
  };
  const kill = (node: Node) => (node.child ? endProcess(node.child, 'SIGKILL') : Promise.resolve());

  await start(nodes[0]!);
  const sentinels: Node[] = [];
  if (nodes[1]) {
    await start(nodes[1], nodes[0]);
    for (let i = 0; i < 3; i++) {
      const node: Node = { port: await freePort() };
      const file = path.join(dir, `sentinel-${node.port}.conf`);
      writeFileSync(
        file,
        [
          `port ${node.port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${nodes[0]!.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${options.downAfterMs ?? 5_000}`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 10000`,
          '',
        ].join('\n'),
      );
      node.child = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
      sentinels.push(node);
    }
    for (const node of sentinels) {
      await waitFor(`Sentinel on port ${node.port}`, async () => (await cli(node.port, 'sentinel', 'replicas', SENTINEL_MASTER)).includes(String(nodes[1]!.port)), node.child);
    }
  }
  const masterPort = async () => (await cli(sentinels[0]!.port, 'sentinel', 'get-master-addr-by-name', SENTINEL_MASTER)).split('\n')[1];

  return {
    url: `redis://127.0.0.1:${nodes[0]!.port}`,
    sentinels: sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
    flushAll: async () => void (await cli(nodes[master]!.port, 'flushall')),
    async restart(downMs) {
      const node = nodes[master]!;
      await kill(node);
      await sleep(downMs);
      await start(node);
    },
    async failover() {
      if (!nodes[1]) throw new Error('no replica to fail over to');
      const old = nodes[master]!;
      const promoted = nodes[1 - master]!;
      await kill(old);
      await waitFor('the Sentinels\' failover', async () => (await masterPort()) === String(promoted.port));
      master = 1 - master;
      await start(old);
    },
    async stop() {
      await Promise.all([...nodes, ...sentinels].map(kill));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
