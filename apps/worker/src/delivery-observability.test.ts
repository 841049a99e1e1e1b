import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { serveWorkerMetrics } from './metrics';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/** What operators see of deliveries (docs/api-decisions.md, "Delivery", "Operations"): attempt log lines and metrics. */
let h: WorkerHarness;
let setup: SendingSetup;
let strict: SendingSetup;
const peers: TestSmtpServer[] = [];

async function mx(domain: string, address: string, options: Omit<Parameters<typeof startTestSmtpServer>[0], 'host' | 'port'> = {}) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
  h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  peers.push(await startTestSmtpServer({ host: address, port: h.smtpPort, ...options }));
}

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'observed.test' });
  strict = await h.createSendingSetup({ domain: 'strict-observed.test', policy: 'require_tls' });
});
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
afterAll(() => h.close());

const attemptLine = (emailId: string) => h.logLines().find((l) => l.email_id === emailId && l.message === 'attempt recorded')!;

describe('the attempt log line', () => {
  it('says why TLS failed when require_tls could not be met', async () => {
    await mx('untrusted.test', '127.0.0.2', { tls: 'untrusted' });
    const emailId = await h.queueEmail(strict, { to: ['ann@untrusted.test'] });
    await h.runJob(emailId);
    expect(attemptLine(emailId)).toMatchObject({ cause: 'tls_required_unavailable', tls: false, tls_failure: expect.stringMatching(/certificate/i) });
  });

  it('says why TLS failed when an opportunistic session fell back to plain text', async () => {
    await mx('broken.test', '127.0.0.2', { tls: 'broken_handshake' });
    const emailId = await h.queueEmail(setup, { to: ['ann@broken.test'] });
    await h.runJob(emailId);
    expect(attemptLine(emailId)).toMatchObject({ outcome: 'accepted', tls: false, tls_failure: expect.any(String) });
  });

  it('has no TLS failure when TLS worked, and names nothing of a BCC destination', async () => {
    await mx('fine.test', '127.0.0.2');
    const ok = await h.queueEmail(setup, { to: ['ann@fine.test'] });
    await h.runJob(ok);
    expect(attemptLine(ok)).toMatchObject({ outcome: 'accepted', tls: true });
    expect(attemptLine(ok)).not.toHaveProperty('tls_failure');

    await mx('hidden.test', '127.0.0.3', { tls: 'broken_handshake' });
    const blind = await h.queueEmail(setup, { to: ['ann@fine.test'], bcc: ['bob@hidden.test'] });
    await h.runJob(blind);
    const lines = h.logLines().filter((l) => l.email_id === blind && l.message === 'attempt recorded');
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain('hidden');
  });
});

describe('the daemon metrics', () => {
  it('observe the time from acceptance to a terminal status once per message', async () => {
    await mx('latency.test', '127.0.0.2');
    const count = async () => {
      const text = await h.deps.metrics.registry.metrics();
      return Number(/^mailer_email_completion_seconds_count (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    const emailId = await h.queueEmail(setup, { to: ['ann@latency.test', 'bob@latency.test'], createdAt: new Date(Date.now() - 90_000) });
    await h.runJob(emailId);
    expect(await count()).toBe(before + 1);
    const text = await h.deps.metrics.registry.metrics();
    // 90 s before: in the 300 s bucket, not in the 60 s one.
    const bucket = (le: string) => Number(new RegExp(`^mailer_email_completion_seconds_bucket\\{le="${le}"\\} (\\d+)$`, 'm').exec(text)![1]);
    expect(bucket('300') - bucket('60')).toBeGreaterThanOrEqual(1);
  });

  it('without OPERATOR_TOKEN, /metrics answers 503 saying OPERATOR_TOKEN is not configured; /healthz still answers', async () => {
    expect(h.config.operatorToken).toBeUndefined();
    const server = serveWorkerMetrics(h.deps.metrics, h.config, h.deps.logger);
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: { code: 'operator_token_not_configured', message: expect.stringContaining('OPERATOR_TOKEN is not configured') } });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
