import { mtaStsPolicy, POLICY_CA_FILE, startTestPolicyHost, startTestSmtpServer, type TestPolicyHost, type TestSmtpServer, type TestSmtpServerOptions } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/**
 * Receivers' TLS policies end to end (docs/api-decisions.md, "Receivers' TLS policies"): the
 * attempt's TLS evidence and the policy that applied, the delivery's cause through the
 * transition writer, and the per-policy counts of /metrics.
 */
let h: WorkerHarness;
let policyHost: TestPolicyHost;
let setup: SendingSetup;
let strict: SendingSetup;
const peers: TestSmtpServer[] = [];

async function mx(domain: string, host: string, address: string, options: Omit<TestSmtpServerOptions, 'host' | 'port'> = {}) {
  h.dns.set(domain, [{ type: 'MX', exchange: host, priority: 10 }]);
  h.dns.set(host, [{ type: 'A', address }]);
  const peer = await startTestSmtpServer({ host: address, port: h.smtpPort, ...options });
  peers.push(peer);
  return peer;
}

function publishEnforce(domain: string, mx: string) {
  h.dns.set(`_mta-sts.${domain}`, [{ type: 'TXT', data: 'v=STSv1; id=20261127' }]);
  h.dns.set(`mta-sts.${domain}`, [{ type: 'A', address: '127.0.0.1' }]);
  policyHost.answer(domain, { kind: 'policy', body: mtaStsPolicy('enforce', [mx]) });
}

async function attempt(emailId: string) {
  const [row] = await h.deps.db`select tls_version, tls_cipher, tls_verified, tls_policy, cause from attempts where email_id = ${emailId} order by number desc limit 1`;
  return row!;
}

async function sessions(policy: string, result: string): Promise<number> {
  const text = await h.deps.metrics.registry.metrics();
  return Number(new RegExp(`^mailer_tls_sessions_total\\{policy="${policy}",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

beforeAll(async () => {
  policyHost = await startTestPolicyHost();
  h = await startWorkerHarness({ MTA_STS_CA_FILE: POLICY_CA_FILE, MTA_STS_POLICY_PORT: String(policyHost.port) });
  setup = await h.createSendingSetup({ domain: 'policies.test' });
  strict = await h.createSendingSetup({ domain: 'strict-policies.test', policy: 'require_tls' });
});
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await h.close();
  await policyHost.close();
});

describe('MTA-STS enforce', () => {
  it('defers with tls_policy_failed through the transition writer, nothing sent in clear, and counts the failure', async () => {
    const peer = await mx('enforce.sts.test', 'mx1.tls.test', '127.0.0.2', { tls: 'none' });
    publishEnforce('enforce.sts.test', 'mx1.tls.test');
    const before = await sessions('mta-sts', 'failure');
    const emailId = await h.queueEmail(setup, { to: ['ann@enforce.sts.test'] });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'deferred', cause: { code: 'tls_policy_failed', permanent: false } });
    expect(stored.deliveries[0]).toMatchObject({ status: 'deferred', cause: { code: 'tls_policy_failed' } });
    expect(await attempt(emailId)).toMatchObject({ tls_version: null, tls_verified: null, tls_policy: 'mta-sts' });
    expect(peer.dataReceived()).toBe(0);
    expect(await sessions('mta-sts', 'failure')).toBe(before + 1);
  });

  it('records the TLS evidence of a session that met the policy', async () => {
    // The same domain, MX and policy as above (the daemon keeps routes for a while), now with STARTTLS.
    await mx('enforce.sts.test', 'mx1.tls.test', '127.0.0.2');
    publishEnforce('enforce.sts.test', 'mx1.tls.test');
    const before = await sessions('mta-sts', 'success');
    const emailId = await h.queueEmail(setup, { to: ['ann@enforce.sts.test'] });
    await h.runJob(emailId);
    expect((await h.readEmail(emailId)).email.status).toBe('accepted');
    expect(await attempt(emailId)).toMatchObject({ tls_version: expect.stringMatching(/^TLSv1\.[23]$/), tls_cipher: expect.any(String), tls_verified: true, tls_policy: 'mta-sts' });
    expect(await sessions('mta-sts', 'success')).toBe(before + 1);
  });
});

describe('TLS evidence without a receiver policy', () => {
  it('records the sender policy that applied and counts sessions per policy', async () => {
    await mx('plain.test', 'mx.plain.test', '127.0.0.2', { tls: 'none' });
    await mx('secure.test', 'mx2.tls.test', '127.0.0.3');
    const [plainBefore, strictBefore] = [await sessions('opportunistic', 'failure'), await sessions('require_tls', 'success')];
    const plain = await h.queueEmail(setup, { to: ['ann@plain.test'] });
    const secure = await h.queueEmail(strict, { to: ['bob@secure.test'] });
    await h.runJob(plain);
    await h.runJob(secure);
    expect(await attempt(plain)).toMatchObject({ tls_version: null, tls_policy: 'opportunistic' });
    expect(await attempt(secure)).toMatchObject({ tls_version: expect.stringMatching(/^TLSv1\.[23]$/), tls_verified: true, tls_policy: 'require_tls' });
    expect(await sessions('opportunistic', 'failure')).toBe(plainBefore + 1);
    expect(await sessions('require_tls', 'success')).toBe(strictBefore + 1);
  });
});
