import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { createTestDatabase, freePort, testRedisPrefix } from '@mailer/testing';

/**
 * `npm start`, `node scripts/start-all.js` and `npm run start:worker` as operators run them
 * (the build is done: `npm test` runs `tsc -b` first). A SIGTERM to the process the operator
 * started must stop every node process under it gracefully (docs/api-decisions.md, "Operations").
 */
const root = path.resolve(__dirname, '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process below `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const healthy = (port: number) => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);

/** Something accepts TCP connections on the port (the submission listener has no HTTP port). */
const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

interface Started {
  child: ChildProcess;
  /** The processes under it once it was up. */
  processes: number[];
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let env: Record<string, string>;
const started: Started[] = [];

interface Ports {
  api: number;
  worker: number;
  inbound: number;
  inboundMetrics: number;
  submission: number;
  submissionTls: number;
  submissionMetrics: number;
}

const freePorts = async (): Promise<Ports> => ({
  api: await freePort(),
  worker: await freePort(),
  inbound: await freePort(),
  inboundMetrics: await freePort(),
  submission: await freePort(),
  submissionTls: await freePort(),
  submissionMetrics: await freePort(),
});

function start(command: string, args: string[], ports: Ports): Started {
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...env,
      PORT: String(ports.api),
      WORKER_METRICS_PORT: String(ports.worker),
      INBOUND_PORT: String(ports.inbound),
      INBOUND_METRICS_PORT: String(ports.inboundMetrics),
      SUBMISSION_PORT: String(ports.submission),
      SUBMISSION_TLS_PORT: String(ports.submissionTls),
      SUBMISSION_METRICS_PORT: String(ports.submissionMetrics),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const run: Started = { child, processes: [], output: () => output, exited };
  started.push(run);
  return run;
}

beforeAll(async () => {
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: await createTestDatabase(),
    REDIS_PREFIX: testRedisPrefix(),
    WORKER_SHUTDOWN_GRACE: '2s',
    COMPOSITION_THREADS: '1',
  };
});

afterEach(async () => {
  // A failed test must not leave its processes behind either.
  for (const run of started.splice(0)) {
    for (const pid of new Set([run.child.pid!, ...run.processes, ...descendants(run.child.pid!)])) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

describe.each([
  ['npm start', 'npm', ['start']],
  ['node scripts/start-all.js', process.execPath, ['scripts/start-all.js']],
])('%s', (_name, command, args) => {
  it.each(['SIGTERM', 'SIGINT'] as const)('on %s stops the API, the daemon and both listeners gracefully and leaves no process behind', async (signal) => {
    const ports = await freePorts();
    const run = start(command, args as string[], ports);
    await waitUntil(
      async () => (await healthy(ports.api)) && (await healthy(ports.worker)) && (await healthy(ports.inboundMetrics)) && (await healthy(ports.submissionMetrics)) && (await accepting(ports.submissionTls)),
      'the API, the daemon, the inbound listener and the submission listener',
      60_000,
    );
    const processes = (run.processes = descendants(run.child.pid!));
    expect(processes.length).toBeGreaterThanOrEqual(3);

    run.child.kill(signal);
    await run.exited;
    await waitUntil(() => processes.every((pid) => !alive(pid)), 'every process under it to exit', 10_000);
    expect(run.output()).toContain('"message":"api stopping"');
    expect(run.output()).toContain('"message":"worker stopped"');
    expect(run.output()).toContain('"message":"inbound stopped"');
    expect(run.output()).toContain('"message":"submission stopped"');
  }, 90_000);
});

describe('npm run start:worker', () => {
  it('hands SIGTERM to node itself: the daemon stops gracefully and nothing is left', async () => {
    const ports = await freePorts();
    const run = start('npm', ['run', 'start:worker'], ports);
    await waitUntil(() => healthy(ports.worker), 'the daemon', 30_000);
    const processes = (run.processes = descendants(run.child.pid!));

    run.child.kill('SIGTERM');
    await run.exited;
    await waitUntil(() => processes.every((pid) => !alive(pid)), 'every process under npm to exit', 10_000);
    expect(run.output()).toContain('"message":"worker stopped"');
  }, 60_000);
});
