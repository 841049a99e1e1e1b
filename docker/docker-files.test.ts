import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig, parseDuration } from '@mailer/config';

/**
 * What holds without building anything: the files parse, every command the image and
 * compose file run is the node entry point of a package.json script (node itself, never
 * npm, so signals reach it), each role has a health check on its own port and more time
 * to stop than it takes. `npm run test:image` builds and runs them for real.
 */
const root = path.resolve(__dirname, '..');
const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
const dockerfile = readFileSync(path.join(__dirname, 'Dockerfile'), 'utf8');
// Compose resolves YAML merge keys (`<<: *app`), so this parse does too.
const compose = parse(readFileSync(path.join(__dirname, 'compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { command?: string[]; image?: string; environment?: Record<string, string>; healthcheck?: { test: string[] }; stop_grace_period?: string }
  >;
};

/** The worker's settings as compose gives them (the secrets there are placeholders for the host's). */
const workerEnv = compose.services.worker!.environment!;
const workerConfig = loadConfig({ WORKER_METRICS_PORT: workerEnv.WORKER_METRICS_PORT, WORKER_SHUTDOWN_GRACE: workerEnv.WORKER_SHUTDOWN_GRACE });

/** The package.json script that runs this node command (`exec node <entry>`, or `node <entry>`). */
const npmScriptOf = (command: string[]) => {
  expect(command[0]).toBe('node');
  const script = Object.keys(scripts).find((name) => scripts[name]!.replace(/^exec /, '') === command.join(' '));
  expect(script).toBeDefined();
  return script!;
};

describe('docker/Dockerfile', () => {
  it('is multi-stage, runs as a non-root user and starts a script that exists', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(scripts[npmScriptOf(cmd)]).toBeDefined();
  });

  it('compiles with the production build, which leaves tests out (scripts/production-build.test.ts)', () => {
    expect(dockerfile).toMatch(/^RUN npm run build\b/m);
  });

  it('copies only files that exist in the repository', () => {
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) expect(existsSync(path.join(root, source))).toBe(true);
    }
  });
});

describe('docker/compose.yml', () => {
  it('runs PostgreSQL, Redis with AOF and noeviction, the migrations, the API, the worker and both listeners', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'inbound', 'migrations', 'postgres', 'redis', 'submission', 'worker']);
    const redis = compose.services.redis!.command!.join(' ');
    expect(redis).toContain('--appendonly yes');
    expect(redis).toContain('--maxmemory-policy noeviction');
  });

  it('runs one image in every role, each the node entry point of its script', () => {
    for (const [name, expected] of [['api', 'start:api'], ['worker', 'start:worker'], ['inbound', 'start:inbound'], ['submission', 'start:submission'], ['migrations', 'migrate']] as const) {
      const service = compose.services[name]!;
      expect(service.image).toBe('${MAILER_IMAGE:-mailer:latest}');
      const script = npmScriptOf(service.command!);
      expect(script).toBe(expected);
      expect(scripts[script]).toBeDefined();
      expect(service.environment?.DATABASE_URL).toContain('@postgres:5432/');
    }
  });

  it('checks the API, the worker and both listeners each on its own port', () => {
    const inboundEnv = compose.services.inbound!.environment!;
    const submissionEnv = compose.services.submission!.environment!;
    const probes = {
      api: 3000,
      worker: workerConfig.workerMetricsPort,
      inbound: loadConfig({ INBOUND_METRICS_PORT: inboundEnv.INBOUND_METRICS_PORT }).inbound.metricsPort,
      submission: loadConfig({ SUBMISSION_METRICS_PORT: submissionEnv.SUBMISSION_METRICS_PORT }).submission.metricsPort,
    };
    expect(new Set(Object.values(probes)).size).toBe(4);
    for (const [name, port] of Object.entries(probes)) {
      expect(compose.services[name]!.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${port}/healthz`);
    }
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\/healthz/m);
  });

  it('gives the worker longer to stop than WORKER_SHUTDOWN_GRACE and its 15 s to close, the API longer than its 15 s drain', () => {
    const grace = workerConfig.worker.shutdownGraceMs;
    expect(parseDuration(compose.services.worker!.stop_grace_period!)).toBeGreaterThan(grace + 15_000);
    expect(parseDuration(compose.services.api!.stop_grace_period!)).toBeGreaterThan(15_000);
  });
});
