import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What `npm publish` would ship (docs/api-decisions.md, "The SDK as a package"). */
describe('the published package', () => {
  it('holds only the built client, its types, the README, the licence and package.json', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: path.resolve(__dirname, '..'), encoding: 'utf8' })) as {
      name: string;
      files: { path: string }[];
    }[];
    expect(packed!.name).toBe('@mailer/sdk');
    const files = packed!.files.map((f) => f.path).sort();
    const modules = ['client', 'error-codes', 'errors', 'index', 'operations', 'schema', 'transport', 'webhooks'];
    expect(files).toEqual(['LICENSE', 'README.md', ...modules.flatMap((m) => [`dist/${m}.d.ts`, `dist/${m}.js`]), 'package.json'].sort());
  });

  it('works once installed: required as CommonJS and imported as an ES module by its package name', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mailer-sdk-'));
    try {
      const [packed] = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: path.resolve(__dirname, '..'), encoding: 'utf8' }),
      ) as { filename: string }[];
      const installed = path.join(dir, 'node_modules/@mailer/sdk');
      mkdirSync(installed, { recursive: true });
      execFileSync('tar', ['-xzf', path.join(dir, packed!.filename), '-C', installed, '--strip-components=1']);
      const probe = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8' }).trim();
      expect(probe(['-e', "const sdk = require('@mailer/sdk'); console.log(typeof sdk.MailerClient, sdk.API_ERROR_CODES.includes('plan_limit_exceeded'))"])).toBe('function true');
      expect(probe(['--input-type=module', '-e', "import { MailerApiError, verifyWebhook } from '@mailer/sdk'; console.log(typeof MailerApiError, typeof verifyWebhook)"])).toBe(
        'function function',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is publishable, licensed, and names its entry points', () => {
    const manifest = require('../package.json') as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' });
    expect(manifest.dependencies).toBeUndefined();
  });
});
