import { execFileSync } from 'node:child_process';
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

  it('is publishable, licensed, and names its entry points', () => {
    const manifest = require('../package.json') as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' });
    expect(manifest.dependencies).toBeUndefined();
  });
});
