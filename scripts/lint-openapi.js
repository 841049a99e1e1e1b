#!/usr/bin/env node
// Lints the OpenAPI document built from the API's route list (apps/api/dist: run `tsc -b` first; no server, no
// database) with @redocly/cli, redocly.yaml and its .redocly.lint-ignore.yaml. Any problem, warnings included,
// fails. Offline: telemetry is off in redocly.yaml, the update check here.
const { spawnSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { apiRoutes, openApiDocument } = require('../apps/api/dist');

const root = path.resolve(__dirname, '..');
// The path .redocly.lint-ignore.yaml names the document by.
const file = path.join(root, 'apps/api/dist/openapi.json');
writeFileSync(file, JSON.stringify(openApiDocument(apiRoutes), null, 2));
const result = spawnSync(
  process.execPath,
  [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--config', path.join(root, 'redocly.yaml'), '--max-problems', '1000', '--format', 'json', file],
  { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
);
if (result.status === null || !result.stdout.trim().startsWith('{')) {
  process.stderr.write(result.stderr);
  process.exit(1);
}
const { totals, problems } = JSON.parse(result.stdout);
for (const problem of problems) console.error(`${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
console.log(`openapi.json: ${totals.errors} errors, ${totals.warnings} warnings, ${totals.ignored} ignored (.redocly.lint-ignore.yaml)`);
process.exit(totals.errors + totals.warnings > 0 ? 1 : 0);
