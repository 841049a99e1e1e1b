'use strict';
// `npm start`: applies migrations, then runs one API process, one delivery daemon, the inbound listener and the
// SMTP submission listener. In production run `npm run start:api`, `npm run start:worker`, `npm run start:inbound`
// and `npm run start:submission` separately
// (any number of APIs and daemons; one listener per INBOUND_HOST address).
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const migrated = spawnSync(process.execPath, [path.join(root, 'packages/db/dist/migrate-cli.js')], { stdio: 'inherit' });
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

const children = ['apps/api/dist/main.js', 'apps/worker/dist/main.js', 'apps/inbound/dist/main.js', 'apps/submission/dist/main.js'].map((entry) =>
  spawn(process.execPath, [path.join(root, entry)], { stdio: 'inherit' }),
);
let exiting = false;
const stopAll = (code) => {
  if (exiting) return;
  exiting = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(() => process.exit(code));
};
for (const child of children) child.once('exit', (code) => stopAll(code ?? 1));
process.on('SIGTERM', () => stopAll(0));
process.on('SIGINT', () => stopAll(0));
