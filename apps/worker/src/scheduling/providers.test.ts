import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '@mailer/config';
import { publishDestinationSnapshot } from '@mailer/queue';
import { startTestSmtpServer, TransactionGauge } from '@mailer/testing';
import { closeContainer, createContainer, type WorkerDependencies } from '../container';
import { deliverMessage, startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

describe('a provider of the operator’s table (PROVIDERS_FILE)', () => {
  let h: WorkerHarness;
  let second: WorkerDependencies;
  beforeAll(async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify([{ name: 'bigmail', suffixes: ['bigmail.test'], connections: 2 }]));
    h = await startWorkerHarness({ PROVIDERS_FILE: file, SMTP_POOL_IDLE: '10s' });
    second = createContainer(loadConfig(h.env));
  });
  afterAll(async () => {
    await closeContainer(second);
    await h.close();
  });

  it('is one destination for domains whose distinct MX sets end in its suffix: its connection limit holds over both, across daemons', async () => {
    const transactions = new TransactionGauge();
    const peer = await startTestSmtpServer({ host: '127.0.0.8', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 100 }, transactions });
    // Two customer domains of the provider, each with MX hosts of its own under the provider's suffix.
    h.dns.set('customer-one.test', [{ type: 'MX', exchange: 'aspmx.bigmail.test', priority: 10 }]);
    h.dns.set('customer-two.test', [
      { type: 'MX', exchange: 'mx1.eu.bigmail.test', priority: 10 },
      { type: 'MX', exchange: 'mx2.eu.bigmail.test', priority: 20 },
    ]);
    for (const host of ['aspmx.bigmail.test', 'mx1.eu.bigmail.test', 'mx2.eu.bigmail.test']) h.dns.set(host, [{ type: 'A', address: '127.0.0.8' }]);
    const setup = await h.createSendingSetup({ domain: 'provider-sender.test' });
    const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => h.queueEmail(setup, { to: [`u${i}@customer-${i % 4 < 2 ? 'one' : 'two'}.test`] })));
    await Promise.all(ids.map((id, i) => deliverMessage(i % 2 ? second : h.deps, id)));
    for (const id of ids) expect((await h.readEmail(id)).email.status).toBe('accepted');
    expect(peer.messages).toHaveLength(24);
    // Each domain alone would have had the daemons' own concurrency (5 each, per daemon).
    expect(transactions.peak()).toBeLessThanOrEqual(2);

    const [provider, ...others] = h.deps.scheduler.snapshot();
    expect(others).toEqual([]);
    expect(provider).toMatchObject({ destination: 'provider:bigmail', id: 'bigmail', provider: 'bigmail' });
    expect(provider!.domains.sort()).toEqual(['customer-one.test', 'customer-two.test']);
    expect(provider!.mxHosts.sort()).toEqual(['aspmx.bigmail.test', 'mx1.eu.bigmail.test', 'mx2.eu.bigmail.test']);
    await peer.close();
  });

  it('is one line of `queue destinations`, naming the provider, its MX hosts and domains', async () => {
    await publishDestinationSnapshot(h.deps.producerRedis, h.config.redisPrefix, { daemon: 'test', at: new Date().toISOString(), destinations: h.deps.scheduler.snapshot() });
    const cli = path.resolve(__dirname, '..', '..', '..', 'cli', 'dist', 'main.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'queue', 'destinations', '--json'], { env: { PATH: process.env.PATH ?? '', ...h.env } });
    const listed = (JSON.parse(stdout) as { destinations: { provider: string | null; mx_hosts: string[]; domains: string[] }[] }).destinations;
    expect(listed).toHaveLength(1);
    expect(listed[0]!.provider).toBe('bigmail');
    expect(listed[0]!.mx_hosts.sort()).toEqual(['aspmx.bigmail.test', 'mx1.eu.bigmail.test', 'mx2.eu.bigmail.test']);
    expect(listed[0]!.domains.sort()).toEqual(['customer-one.test', 'customer-two.test']);
  });

  it('labels its gauges on /metrics by the provider’s name', async () => {
    const text = await h.deps.metrics.registry.metrics();
    expect(text).toMatch(/mailer_destination_concurrency\{destination="bigmail"\} \d+/);
  });

  it('leaves the shipped table in place beside the operator’s entries', () => {
    const names = [...h.config.worker.providers.operator, ...h.config.worker.providers.shipped].map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['bigmail', 'gmail', 'microsoft', 'yahoo', 'apple']));
  });
});
