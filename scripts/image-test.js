'use strict';
// The compose stack of the image under test (scripts/image-test.sh builds and loads the images first):
// docker/compose.yml, unchanged but for an override that points the roles at a DNS server and an SMTP sink of this
// script's own, runs until every role is healthy; an account is made with the CLI inside the API's container, a domain
// made ready and a sender created over the API, one message sent and received by the sink, DKIM-signed; then the
// stack stops and every role must have exited 0.
const { execFileSync } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { freePort, startTestDnsServer, startTestSmtpServer } = require('@mailer/testing');

const root = path.resolve(__dirname, '..');
const PROJECT = 'mailer-image-test';
// The containers reach this script's DNS server and sink at their network's gateway, an address of this host.
const SUBNET = process.env.IMAGE_TEST_SUBNET ?? '172.31.250.0/24';
const GATEWAY = SUBNET.replace(/\.0\/24$/, '.1');
const ROLES = ['api', 'worker', 'inbound', 'submission'];
const SINK_PORT = 2526;
/** The roles' first health check runs one interval (30 s) after they start. */
const HEALTHY_WITHIN_MS = 180_000;
const DELIVERED_WITHIN_MS = 120_000;

const log = (line) => console.log(`[image-test] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const run = (program, args, options = {}) => execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options }).trim();
const docker = (...args) => run('docker', args);

async function main() {
  const work = mkdtempSync(path.join(tmpdir(), 'mailer-image-test-'));
  const apiPort = await freePort();
  const composeEnv = {
    ...process.env,
    MAILER_IMAGE: process.env.MAILER_IMAGE ?? 'localhost/mailer:test',
    POSTGRES_IMAGE: process.env.POSTGRES_IMAGE ?? 'localhost/mailer-postgres:15',
    REDIS_IMAGE: process.env.REDIS_IMAGE ?? 'localhost/mailer-redis:7',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OPERATOR_TOKEN: randomBytes(16).toString('hex'),
    SMTP_HELO_NAME: 'mail.image-test.example',
    API_PUBLISHED_PORT: String(apiPort),
    INBOUND_PUBLISHED_PORT: String(await freePort()),
    SUBMISSION_PUBLISHED_PORT: String(await freePort()),
    SUBMISSION_TLS_PUBLISHED_PORT: String(await freePort()),
  };
  const compose = (...args) =>
    run(
      'docker-compose',
      ['-p', PROJECT, '--project-directory', path.join(root, 'docker'), '-f', path.join(root, 'docker/compose.yml'), '-f', path.join(work, 'override.yml'), ...args],
      { env: composeEnv },
    );

  try {
    docker('network', 'rm', PROJECT);
  } catch {
    // none left by an earlier run
  }
  docker('network', 'create', '--subnet', SUBNET, '--gateway', GATEWAY, PROJECT);
  const dns = await startTestDnsServer({ host: GATEWAY });
  const sink = await startTestSmtpServer({ host: GATEWAY, port: SINK_PORT, tls: 'none' });
  const peers = { DNS_SERVERS: dns.address, DNS_TIMEOUT: '2s', ALLOW_PRIVATE_MX: 'true', SMTP_PORT: String(SINK_PORT) };
  writeFileSync(
    path.join(work, 'override.yml'),
    JSON.stringify({
      services: Object.fromEntries(ROLES.map((role) => [role, { environment: peers }])),
      networks: { default: { external: true, name: PROJECT } },
    }),
  );
  let up = false;
  try {
    log('docker-compose up');
    compose('up', '-d', '--no-build');
    up = true;
    await waitUntilHealthy();
    log(`healthy: ${ROLES.join(', ')}`);

    const account = JSON.parse(compose('exec', '-T', 'api', 'node', 'apps/cli/dist/main.js', 'account', 'create', '--name', 'Image test', '--json'));
    const api = client(`http://127.0.0.1:${apiPort}`);
    const manage = { Authorization: `Bearer ${account.management_key}` };
    const domain = await api('POST', '/v1/domains', manage, { name: 'image-test.example' });
    const { records } = await api('GET', `/v1/domains/${domain.id}/dns`, manage);
    for (const record of records.filter((r) => (r.type ?? 'TXT') === 'TXT')) dns.set(record.name, [{ type: 'TXT', data: record.value }]);
    const checked = await api('POST', `/v1/domains/${domain.id}/check-dns`, manage);
    if (checked.status !== 'ready') throw new Error(`domain not ready after its records were published: ${JSON.stringify(checked)}`);
    await api('POST', `/v1/domains/${domain.id}/senders`, manage, { email: 'hello@image-test.example' });
    dns.set('sink.example', [{ type: 'MX', exchange: 'mx.sink.example', priority: 10 }]);
    dns.set('mx.sink.example', [{ type: 'A', address: GATEWAY }]);
    const sent = await api('POST', '/v1/emails', { Authorization: `Bearer ${account.sending_key}`, 'Idempotency-Key': randomUUID() }, {
      from: 'hello@image-test.example',
      to: ['someone@sink.example'],
      subject: 'Through the image',
      content: { plain: 'Built, composed and delivered.' },
    });
    log(`accepted ${sent.id}`);
    const deadline = Date.now() + DELIVERED_WITHIN_MS;
    while (sink.messages.length === 0) {
      if (Date.now() > deadline) throw new Error(`nothing reached the sink; the message is ${JSON.stringify(await api('GET', `/v1/emails/${sent.id}`, { Authorization: `Bearer ${account.sending_key}` }))}`);
      await sleep(500);
    }
    const raw = sink.messages[0].raw.toString('utf8');
    if (!/^DKIM-Signature:.*d=image-test\.example/ims.test(raw)) throw new Error('the message reached the sink without the domain\'s DKIM signature');
    log(`delivered to the sink, DKIM-signed (${sink.messages.length} message)`);

    log('docker-compose stop');
    compose('stop');
    const exits = Object.fromEntries(
      [...ROLES, 'migrations'].map((role) => [role, Number(docker('inspect', '-f', '{{.State.ExitCode}}', compose('ps', '-q', role)))]),
    );
    log(`exit codes: ${JSON.stringify(exits)}`);
    if (Object.values(exits).some((code) => code !== 0)) throw new Error('a role did not exit 0 on stop');
    log('OK');
  } catch (error) {
    if (up) console.log(compose('logs', '--tail=30'));
    throw error;
  } finally {
    if (up) compose('down', '-v');
    docker('network', 'rm', PROJECT);
    await sink.close();
    await dns.close();
    rmSync(work, { recursive: true, force: true });
  }

  async function waitUntilHealthy() {
    const deadline = Date.now() + HEALTHY_WITHIN_MS;
    for (;;) {
      const states = ROLES.map((role) => docker('inspect', '-f', '{{.State.Health.Status}}', compose('ps', '-q', role)));
      if (states.every((s) => s === 'healthy')) return;
      if (Date.now() > deadline) throw new Error(`not healthy: ${ROLES.map((r, i) => `${r} ${states[i]}`).join(', ')}`);
      await sleep(2_000);
    }
  }
}

/** JSON over HTTP; a non-2xx answer throws with its body. */
function client(baseUrl) {
  return async (method, route, headers, body) => {
    const res = await fetch(baseUrl + route, {
      method,
      headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
