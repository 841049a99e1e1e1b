'use strict';
// `npm start`: applies migrations, then runs one process of each role below. In production run each role
// separately (`npm run start:api`, `start:worker`, `start:inbound`, `start:submission`: any number of APIs and
// daemons; one inbound listener per INBOUND_HOST address). When one role exits, the others are stopped and start-all exits: nothing is left
// half-running (docs/api-decisions.md, "First run").
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { loadConfig, ConfigError } = require(path.join(root, 'packages/config/dist'));

let config;
try {
  config = loadConfig();
} catch (error) {
  log('error', error instanceof ConfigError ? error.message : String(error));
  process.exit(1);
}

/** An address to reach a listener bound to `host` from this machine. */
const reachable = (host) => (host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host);
const local = reachable(config.host);

/**
 * Each role: its entry point, the URL that answers once it is up, and where it listens, for the line that tells the
 * operator at start. A new role is one more entry.
 */
const ROLES = [
  {
    name: 'api',
    entry: 'apps/api/dist/main.js',
    ready: `http://${local}:${config.port}/healthz`,
    shows: { api: `http://${local}:${config.port}`, docs: `http://${local}:${config.port}/docs` },
  },
  {
    name: 'worker',
    entry: 'apps/worker/dist/main.js',
    ready: `http://${local}:${config.workerMetricsPort}/healthz`,
    shows: {},
  },
  {
    name: 'inbound',
    entry: 'apps/inbound/dist/main.js',
    ready: `http://${local}:${config.inbound.metricsPort}/healthz`,
    shows: { inbound_smtp: `${local}:${config.inbound.port}` },
  },
  {
    name: 'submission',
    entry: 'apps/submission/dist/main.js',
    ready: `http://${local}:${config.submission.metricsPort}/healthz`,
    shows: { submission_starttls: `${local}:${config.submission.port}`, submission_tls: `${local}:${config.submission.tlsPort}` },
  },
];

/** One JSON line, as the services log. */
function log(level, message, fields = {}) {
  process.stdout.write(`${JSON.stringify({ level, message, service: 'start-all', ...fields, timestamp: new Date().toISOString() })}\n`);
}

const migrated = spawnSync(process.execPath, [path.join(root, 'packages/db/dist/migrate-cli.js')], { stdio: 'inherit' });
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

const children = ROLES.map((role) => ({ role, process: spawn(process.execPath, [path.join(root, role.entry)], { stdio: 'inherit' }) }));
let exiting = false;
const stopAll = (code) => {
  if (exiting) return;
  exiting = true;
  for (const { process: child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  Promise.all(children.map(({ process: c }) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(() =>
    process.exit(code),
  );
};
for (const { role, process: child } of children) {
  child.once('exit', (code, signal) => {
    if (!exiting) log(code === 0 ? 'info' : 'error', `${role.name} exited: stopping the others`, { role: role.name, code, signal });
    stopAll(code || 1);
  });
}
process.on('SIGTERM', () => stopAll(0));
process.on('SIGINT', () => stopAll(0));

const answers = (url) => fetch(url).then((r) => r.ok, () => false);

/** Once every role answers, one line says where everything is and how to begin. */
(async () => {
  const pending = new Set(ROLES);
  while (pending.size > 0 && !exiting) {
    for (const role of [...pending]) if (await answers(role.ready)) pending.delete(role);
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (exiting) return;
  log('info', 'mailer started', {
    ...Object.assign({}, ...ROLES.map((role) => role.shows)),
    first_account: 'npm run -s cli -- account create --name "My company" --json',
  });
})();
