import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * No Docker engine runs on these machines, so CI checks what it can without one: the
 * files parse, and every command the image and compose file run exists in package.json.
 */
const root = path.resolve(__dirname, '..');
const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
const dockerfile = readFileSync(path.join(__dirname, 'Dockerfile'), 'utf8');
// Compose resolves YAML merge keys (`<<: *app`), so this parse does too.
const compose = parse(readFileSync(path.join(__dirname, 'compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[]; image?: string; environment?: Record<string, string> }>;
};

const npmScriptOf = (command: string[]) => {
  expect(command.slice(0, 2)).toEqual(['npm', 'run']);
  return command[2]!;
};

describe('docker/Dockerfile', () => {
  it('is multi-stage, runs as a non-root user and starts a script that exists', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(scripts[npmScriptOf(cmd)]).toBeDefined();
  });

  it('copies only files that exist in the repository', () => {
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) expect(existsSync(path.join(root, source))).toBe(true);
    }
  });
});

describe('docker/compose.yml', () => {
  it('runs PostgreSQL, Redis with AOF and noeviction, the migrations, the API and the worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'migrations', 'postgres', 'redis', 'worker']);
    const redis = compose.services.redis!.command!.join(' ');
    expect(redis).toContain('--appendonly yes');
    expect(redis).toContain('--maxmemory-policy noeviction');
  });

  it('runs one image in every role, each with a script that exists', () => {
    for (const [name, expected] of [['api', 'start:api'], ['worker', 'start:worker'], ['migrations', 'migrate']] as const) {
      const service = compose.services[name]!;
      expect(service.image).toBe('mailer:latest');
      const script = npmScriptOf(service.command!);
      expect(script).toBe(expected);
      expect(scripts[script]).toBeDefined();
      expect(service.environment?.DATABASE_URL).toContain('@postgres:5432/');
    }
  });
});
