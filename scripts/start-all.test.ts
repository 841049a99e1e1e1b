import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
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

/** `overrides` replace variables of the environment; an undefined one is left unset. */
function start(command: string, args: string[], ports: Ports, overrides: Record<string, string | undefined> = {}): Started {
  const variables: Record<string, string | undefined> = {
    ...env,
    PORT: String(ports.api),
    WORKER_METRICS_PORT: String(ports.worker),
    INBOUND_PORT: String(ports.inbound),
    INBOUND_METRICS_PORT: String(ports.inboundMetrics),
    SUBMISSION_PORT: String(ports.submission),
    SUBMISSION_TLS_PORT: String(ports.submissionTls),
    SUBMISSION_METRICS_PORT: String(ports.submissionMetrics),
    ...overrides,
  };
  const child = spawn(command, args, {
    cwd: root,
    env: Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined)) as Record<string, string>,
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
    await waitUntil(() => run.output().includes('"message":"mailer started"'), 'the line saying where everything is');
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

/** The JSON lines of an output, parsed (other lines skipped). */
const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the first run (docs/api-decisions.md, "First run")', () => {
  it('starts everything as a user without privileges, on development ports, and says where everything is', async () => {
    const ports = await freePorts();
    const asUser = process.getuid?.() === 0 ? ['runuser', ['-u', 'nobody', '--', process.execPath, 'scripts/start-all.js']] : [process.execPath, ['scripts/start-all.js']];
    // INBOUND_PORT left unset: the development default must be a port any user may bind.
    const run = start(asUser[0] as string, asUser[1] as string[], ports, { INBOUND_PORT: undefined });
    await waitUntil(() => run.output().includes('"message":"mailer started"'), 'the line saying where everything is', 60_000);
    const started = jsonLines(run.output()).find((line) => line.message === 'mailer started')!;
    expect(started).toMatchObject({
      api: `http://127.0.0.1:${ports.api}`,
      docs: `http://127.0.0.1:${ports.api}/docs`,
      inbound_smtp: '127.0.0.1:2525',
      first_account: expect.stringContaining('account create'),
    });
    const smtp = connect(2525, '127.0.0.1');
    const [banner] = (await once(smtp, 'data')) as [Buffer];
    expect(banner.toString()).toMatch(/^220 /);
    smtp.destroy();
    // The short host name of a development machine is a warning, not a failure.
    expect(jsonLines(run.output()).some((line) => line.level === 'warn' && line.variable === 'SMTP_HELO_NAME')).toBe(true);

    const processes = (run.processes = descendants(run.child.pid!));
    const uids = processes.map((pid) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]));
    if (process.getuid?.() === 0) expect(new Set(uids)).toEqual(new Set([65534]));
    run.child.kill('SIGTERM');
    await run.exited;
    await waitUntil(() => processes.every((pid) => !alive(pid)), 'every process under it to exit', 10_000);
  }, 90_000);

  it('stops everything when a listener cannot start, naming the variable to set', async () => {
    const ports = await freePorts();
    const holder = createServer().listen(ports.inbound, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const run = start(process.execPath, ['scripts/start-all.js'], ports);
      const { code } = await run.exited;
      expect(code).toBe(1);
      const lines = jsonLines(run.output());
      expect(lines.find((line) => line.variable === 'INBOUND_PORT')).toMatchObject({
        level: 'error',
        service: 'inbound',
        code: 'EADDRINUSE',
        port: ports.inbound,
        message: expect.stringContaining('set INBOUND_PORT'),
      });
      expect(lines.find((line) => line.service === 'start-all')).toMatchObject({ level: 'error', role: 'inbound', message: 'inbound exited: stopping the others' });
      expect(run.output()).not.toContain('"message":"mailer started"');
      expect(run.output()).not.toMatch(/^\s+at /m);
      expect(descendants(run.child.pid!)).toEqual([]);
    } finally {
      holder.close();
    }
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
