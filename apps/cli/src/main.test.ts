import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '@mailer/db';
import { createTestDatabase } from '@mailer/testing';
import { withDatabase } from '@mailer/config';

/** The built CLI, as `npm run -s cli --` runs it: `npm test` runs `tsc -b` first, so dist is current. */
const CLI = path.resolve(__dirname, '../dist/main.js');
const run = promisify(execFile);

describe('the built CLI (node apps/cli/dist/main.js)', () => {
  it('creates an account against DATABASE_URL, prints JSON and exits 0 with the pool closed', async () => {
    const url = await createTestDatabase();
    const { stdout, stderr } = await run(process.execPath, [CLI, 'account', 'create', '--name', 'Spawned', '--json'], {
      env: { PATH: process.env.PATH, DATABASE_URL: url },
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    const out = JSON.parse(stdout);
    expect(out).toEqual({
      account: { id: expect.stringMatching(/^acc_/), name: 'Spawned', plan: 'free' },
      sending_key: expect.stringMatching(/^svc_live_/),
      test_sending_key: expect.stringMatching(/^svc_test_/),
      management_key: expect.stringMatching(/^mgmt_live_/),
    });
    const database = openDatabase(url, 1);
    try {
      const [row] = await database.db`select name from accounts where id = ${out.account.id}`;
      expect(row?.name).toBe('Spawned');
    } finally {
      await database.close();
    }
  });

  it('exits 1 naming the variable when the configuration is invalid', async () => {
    const failure = await run(process.execPath, [CLI, 'account', 'create', '--name', 'x', '--json'], {
      env: { PATH: process.env.PATH, DATABASE_URL: 'mysql://nope' },
      timeout: 20_000,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse((failure as { stderr: string }).stderr)).toEqual({
      error: { code: 'invalid_configuration', message: expect.stringContaining('DATABASE_URL') },
    });
  });
  it('reads DATABASE_URL from .env in its working directory, and names the variable when that database does not exist', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'mailer-cli-'));
    try {
      const url = await createTestDatabase();
      writeFileSync(path.join(directory, '.env'), `DATABASE_URL=${url}\n`);
      const created = await run(process.execPath, [CLI, 'account', 'create', '--name', 'From dotenv', '--json'], { cwd: directory, env: { PATH: process.env.PATH }, timeout: 20_000 });
      expect(JSON.parse(created.stdout).account.name).toBe('From dotenv');

      // The real environment wins over the file: here it names a database that does not exist.
      const missing = withDatabase(url, 'mailer_no_such_database');
      const failure = await run(process.execPath, [CLI, 'account', 'list', '--json'], { cwd: directory, env: { PATH: process.env.PATH, DATABASE_URL: missing }, timeout: 20_000 }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 1 });
      const { error } = JSON.parse((failure as { stderr: string }).stderr);
      expect(error.code).toBe('database_unavailable');
      expect(error.message).toContain('database "mailer_no_such_database" does not exist');
      expect(error.message).toContain('DATABASE_URL names this database');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
  it('answers JSON alone on stdout as `npx mailer` and `npm run -s cli --` run it, for a pipe into jq', async () => {
    const url = await createTestDatabase();
    const root = path.resolve(__dirname, '../../..');
    const env = { PATH: process.env.PATH, DATABASE_URL: url };
    // `npx mailer` runs the workspace's bin, linked by npm ci into node_modules/.bin.
    const bin = await run(path.join(root, 'node_modules/.bin/mailer'), ['account', 'create', '--name', 'Bin', '--json'], { cwd: root, env, timeout: 20_000 });
    expect(JSON.parse(bin.stdout).account.name).toBe('Bin');
    const script = await run('npm', ['run', '-s', 'cli', '--', 'account', 'create', '--name', 'Script', '--json'], { cwd: root, env, timeout: 30_000 });
    expect(JSON.parse(script.stdout).account.name).toBe('Script');
  });
});
