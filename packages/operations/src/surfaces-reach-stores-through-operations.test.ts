import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '../../..');
const SURFACES = ['apps/api/src/routes', 'apps/api/src/console', 'apps/api/src/http', 'apps/cli/src/commands', 'apps/inbound/src', 'apps/submission/src', 'apps/worker/src'];
// The process wiring opens the database and hands it on; nothing else of a surface names the stores' package.
const WIRING = /^apps\/\w+\/src\/(container|main)\.ts$/;
// Test fixtures (`src/testing`) set up rows as tests do, from the stores themselves.
const FIXTURES = /^apps\/\w+\/src\/testing\//;
const STORES_IMPORT = /(?:from|import|require)\s*\(?\s*['"]@mailer\/db['"]/;

const sourceFiles = (dir: string) =>
  (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => relative(ROOT, join(ROOT, dir, name)));

describe('surfaces reach the stores through @mailer/operations', () => {
  const files = SURFACES.flatMap(sourceFiles).filter((file) => !WIRING.test(file) && !FIXTURES.test(file));

  it('scans the route, console, CLI command, listener and delivery daemon sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'apps/api/src/routes/emails/list-emails.ts',
        'apps/api/src/console/pages/accounts.ts',
        'apps/cli/src/commands/queue.ts',
        'apps/inbound/src/inbound-server.ts',
        'apps/submission/src/submission-server.ts',
        'apps/worker/src/jobs/deliver-message.ts',
      ]),
    );
    expect(files).not.toContain('apps/inbound/src/container.ts');
    expect(files).not.toContain('apps/worker/src/testing/stored-email.ts');
  });

  it('finds no import of @mailer/db among them', () => {
    expect(files.filter((file) => STORES_IMPORT.test(readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });
});
