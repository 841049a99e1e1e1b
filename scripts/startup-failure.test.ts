import { execFile } from 'node:child_process';
import path from 'node:path';
import { LOG_KEY } from '@mailer/logger';

/**
 * Logs are JSON lines from the first to the last (docs/guide.md, "Logs (operators)"): a service that cannot
 * start, for a bad setting or an unreachable database, says so in one JSON line and exits 1.
 * The built services, as `npm run start:*` and `npm run migrate` run them (`npm test` builds first).
 */
const root = path.resolve(__dirname, '..');
const SERVICES = {
  api: 'apps/api/dist/main.js',
  worker: 'apps/worker/dist/main.js',
  inbound: 'apps/inbound/dist/main.js',
  submission: 'apps/submission/dist/main.js',
  migrate: 'packages/db/dist/migrate-cli.js',
} as const;

function run(main: string, env: Record<string, string>): Promise<{ status: number | null; output: string[] }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(root, main)], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
      resolve({ status: error ? ((error as { code?: number }).code ?? null) : child.exitCode, output });
    });
  });
}

describe('a service that cannot start', () => {
  it.each(Object.entries(SERVICES))('%s: a bad setting is one JSON line naming the variable, no stack, exit 1', async (service, main) => {
    const { status, output } = await run(main, { PORT: 'not-a-port', RETRY_SCHEDULE: 'soon' });
    expect(status).toBe(1);
    expect(output).toHaveLength(1);
    const line = JSON.parse(output[0]!);
    expect(line).toMatchObject({
      level: 'error',
      service,
      message: service === 'migrate' ? 'migration failed' : 'start-up failed',
      error: 'invalid configuration',
      problems: expect.arrayContaining([expect.objectContaining({ variable: 'PORT' }), expect.objectContaining({ variable: 'RETRY_SCHEDULE' })]),
      timestamp: expect.any(String),
    });
    expect(line.stack).toBeUndefined();
    expect(Object.keys(line).filter((key) => !LOG_KEY.test(key))).toEqual([]);
  });

  it('an unreachable database is one JSON line with the error and its stack as a field, exit 1', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const { status, output } = await run(SERVICES.migrate, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/mailer' });
    expect(status).toBe(1);
    expect(output).toHaveLength(1);
    expect(JSON.parse(output[0]!)).toMatchObject({ level: 'error', service: 'migrate', message: 'migration failed', error: expect.any(String), stack: expect.any(String) });
  });
});
