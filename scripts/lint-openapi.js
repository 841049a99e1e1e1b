#!/usr/bin/env node
// Lints the OpenAPI document built from the API's route list (apps/api/dist: run `tsc -b` first; no server, no
// database) with @redocly/cli and redocly.yaml. Offline: telemetry is off in redocly.yaml, the update check here.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { apiRoutes, openApiDocument } = require('../apps/api/dist');

const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
const file = path.join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(openApiDocument(apiRoutes), null, 2));
const root = path.resolve(__dirname, '..');
const result = spawnSync(
  process.execPath,
  [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--config', path.join(root, 'redocly.yaml'), '--max-problems', '1000', file],
  { stdio: 'inherit', env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
);
rmSync(dir, { recursive: true });
process.exit(result.status ?? 1);
