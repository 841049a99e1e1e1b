import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { createDnsResolver } from '@mailer/dns';
import {
  mtaStsPolicy,
  POLICY_CA_FILE,
  startTestPolicyHost,
  TEST_CA_FILE,
  TEST_MX_CERT_FILE,
  testRedisPrefix,
  type PolicyAnswer,
  type TestDnsServer,
  type TestPolicyHost,
} from '@mailer/testing';
import { startTransportHarness, type TransportHarness } from '../testing/transport-harness';
import { fetchMtaStsPolicy, POLICY_MAX_BYTES } from './mta-sts/fetch-policy';
import { deliverToHosts, routeDomain, type TransactionReport, type TransportContext } from './smtp-transport';

/** Receivers' TLS policies at the transport (docs/api-decisions.md, "Receivers' TLS policies"): MTA-STS and DANE. */
let h: TransportHarness;
let dns: TestDnsServer;
let policyHost: TestPolicyHost;

const MESSAGE = Buffer.from('From: hello@sender.test\r\nTo: ann@x.test\r\nSubject: Hi\r\nMessage-ID: <1@sender.test>\r\n\r\nHello.\r\n');

/** A daemon's transport trusting the policy hosts; daemons given the same `redisPrefix` share their policy cache. */
const transport = (redisPrefix: string, env: Record<string, string> = {}): TransportContext =>
  h.transport({ REDIS_PREFIX: redisPrefix, MTA_STS_CA_FILE: POLICY_CA_FILE, MTA_STS_POLICY_PORT: String(policyHost.port), ...env });
const peer: TransportHarness['peer'] = (host, options) => h.peer(host, options);

/** `domain`'s MX hosts (by preference) and their addresses. */
function route(domain: string, mxs: Array<[host: string, address: string]>) {
  dns.set(domain, mxs.map(([exchange], i) => ({ type: 'MX' as const, exchange, priority: 10 * (i + 1) })));
  for (const [host, address] of mxs) dns.set(host, [{ type: 'A', address }]);
}

/** Publishes `_mta-sts.<domain>` with `id`, its policy host on loopback, and what that host answers. */
function publish(domain: string, id: string, answer: PolicyAnswer) {
  dns.set(`_mta-sts.${domain}`, [{ type: 'TXT', data: `v=STSv1; id=${id}` }]);
  dns.set(`mta-sts.${domain}`, [{ type: 'A', address: '127.0.0.1' }]);
  policyHost.answer(domain, answer);
}

const enforce = (...mx: string[]): PolicyAnswer => ({ kind: 'policy', body: mtaStsPolicy('enforce', mx) });

async function send(ctx: TransportContext, domain: string, policy: 'opportunistic' | 'require_tls' = 'opportunistic'): Promise<TransactionReport> {
  const signal = AbortSignal.timeout(30_000);
  const routed = await routeDomain(ctx, domain, signal);
  if (routed.kind !== 'hosts') throw new Error(`not routed: ${JSON.stringify(routed)}`);
  return deliverToHosts(ctx, routed.hosts, { domain, from: 'hello@sender.test', recipients: [`ann@${domain}`], message: MESSAGE, policy, mtaSts: routed.mtaSts, signal });
}

const outcome = (report: TransactionReport) => {
  const o = [...report.outcomes.values()][0]!;
  return o.cause ? `${o.outcome}:${o.cause.code}` : o.outcome;
};

beforeAll(async () => {
  h = await startTransportHarness();
  dns = h.dns;
  policyHost = await startTestPolicyHost();
});
afterEach(() => h.reset());
afterAll(async () => {
  await Promise.all([h.close(), policyHost.close()]);
});

describe('MTA-STS enforce', () => {
  it('delivers over TLS 1.2+ to a policy host whose certificate is valid for its name', async () => {
    const mx = await peer('127.0.0.2');
    route('enforce.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('enforce.sts.test', 'a1', enforce('*.tls.test'));
    const report = await send(transport(testRedisPrefix()), 'enforce.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tls).toMatchObject({ version: expect.stringMatching(/^TLSv1\.[23]$/), verified: true });
    expect(report.tlsPolicy).toMatchObject({ applied: 'mta-sts', met: true });
    expect(mx.messages[0]!.tls).toBe(true);
  });

  it.each([
    ['no STARTTLS', 'none', 'mx1.tls.test', TEST_CA_FILE, 'starttls-not-supported'],
    ['a certificate for another name', 'starttls', 'mx.wrong-name.sts.test', TEST_CA_FILE, 'certificate-host-mismatch'],
    ['an expired certificate', 'expired', 'expired.tls.test', POLICY_CA_FILE, 'certificate-expired'],
    ['an untrusted certificate', 'untrusted', 'untrusted.tls.test', TEST_CA_FILE, 'certificate-not-trusted'],
    ['only TLS 1.1', 'tls1.1', 'mx1.tls.test', TEST_CA_FILE, 'validation-failure'],
  ] as const)('defers with tls_policy_failed against %s, sending nothing', async (_label, tls, host, ca, failure) => {
    const mx = await peer('127.0.0.2', { tls });
    route('enforce.sts.test', [[host, '127.0.0.2']]);
    publish('enforce.sts.test', 'a1', enforce(host));
    const report = await send(transport(testRedisPrefix(), { SMTP_CA_FILE: ca }), 'enforce.sts.test');
    expect(outcome(report)).toBe('deferred:tls_policy_failed');
    expect(report.tlsPolicy).toEqual({ applied: 'mta-sts', met: false, failure });
    expect(mx.dataReceived()).toBe(0);
    expect(mx.commands()).not.toContain('MAIL');
  });

  it('applies to require_tls senders too, with its own cause', async () => {
    await peer('127.0.0.2', { tls: 'none' });
    route('enforce.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('enforce.sts.test', 'a1', enforce('mx1.tls.test'));
    const report = await send(transport(testRedisPrefix()), 'enforce.sts.test', 'require_tls');
    expect(outcome(report)).toBe('deferred:tls_policy_failed');
  });

  it('never connects to MX hosts the policy does not name', async () => {
    const other = await peer('127.0.0.2');
    route('elsewhere.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('elsewhere.sts.test', 'b1', enforce('mx.elsewhere.example'));
    const report = await send(transport(testRedisPrefix()), 'elsewhere.sts.test');
    expect(outcome(report)).toBe('deferred:tls_policy_failed');
    expect(other.connections()).toBe(0);
  });

  it('skips the MX hosts the policy does not name and delivers to one it names', async () => {
    const unnamed = await peer('127.0.0.2');
    const named = await peer('127.0.0.3');
    route('elsewhere.sts.test', [
      ['mx1.tls.test', '127.0.0.2'],
      ['mx2.tls.test', '127.0.0.3'],
    ]);
    publish('elsewhere.sts.test', 'b2', enforce('mx2.tls.test'));
    const report = await send(transport(testRedisPrefix()), 'elsewhere.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.mxHost).toBe('mx2.tls.test');
    expect(unnamed.connections()).toBe(0);
    expect(named.messages).toHaveLength(1);
  });
});

describe('MTA-STS testing and none', () => {
  it('testing: delivers as before and counts the failure', async () => {
    const mx = await peer('127.0.0.2', { tls: 'none' });
    route('testing.sts.test', [['mx.unlisted.sts.test', '127.0.0.2']]);
    publish('testing.sts.test', 'c1', { kind: 'policy', body: mtaStsPolicy('testing', ['*.tls.test']) });
    const report = await send(transport(testRedisPrefix()), 'testing.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tlsPolicy).toMatchObject({ applied: 'mta-sts', met: false });
    expect(mx.messages[0]!.tls).toBe(false);
  });

  it('testing: a policy host with a valid certificate meets it', async () => {
    await peer('127.0.0.2');
    route('testing.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('testing.sts.test', 'c2', { kind: 'policy', body: mtaStsPolicy('testing', ['*.tls.test']) });
    expect((await send(transport(testRedisPrefix()), 'testing.sts.test')).tlsPolicy).toMatchObject({ applied: 'mta-sts', met: true });
  });

  it('none: delivers as before, as though there were no policy', async () => {
    const mx = await peer('127.0.0.2', { tls: 'none' });
    route('none.sts.test', [['mx.unlisted.sts.test', '127.0.0.2']]);
    publish('none.sts.test', 'd1', { kind: 'policy', body: mtaStsPolicy('none', []) });
    const report = await send(transport(testRedisPrefix()), 'none.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tlsPolicy).toMatchObject({ applied: 'opportunistic', met: false });
    expect(mx.messages).toHaveLength(1);
  });
});

describe('MTA-STS policy fetch and cache', () => {
  it.each<[string, PolicyAnswer]>([
    ['a 500', { kind: 'status', status: 500 }],
    ['a redirect', { kind: 'redirect', location: 'https://mta-sts.enforce.sts.test/.well-known/mta-sts.txt' }],
    ['an oversized policy', { kind: 'oversized', bytes: POLICY_MAX_BYTES }],
    ['an invalid policy', { kind: 'policy', body: 'version: STSv1\r\nmode: enforce\r\nmax_age: 86400\r\n' }],
  ])('a fetch failing with %s and no cached policy delivers as before', async (_label, answer) => {
    const mx = await peer('127.0.0.2', { tls: 'none' });
    route('down.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('down.sts.test', 'e1', answer);
    const report = await send(transport(testRedisPrefix()), 'down.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tlsPolicy.applied).toBe('opportunistic');
    expect(mx.messages).toHaveLength(1);
    expect(policyHost.fetches('down.sts.test')).toBeGreaterThan(0);
  });

  it('a fetch failing keeps the cached policy, which every daemon sees', async () => {
    const prefix = testRedisPrefix();
    const mx = await peer('127.0.0.2', { tls: 'none' });
    route('cached.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('cached.sts.test', 'f1', enforce('mx1.tls.test'));
    expect(outcome(await send(transport(prefix), 'cached.sts.test'))).toBe('deferred:tls_policy_failed');
    // A new id, and the policy host down: another daemon still enforces the cached policy.
    publish('cached.sts.test', 'f2', { kind: 'status', status: 503 });
    expect(outcome(await send(transport(prefix), 'cached.sts.test'))).toBe('deferred:tls_policy_failed');
    // The TXT record gone: the cached policy still applies (RFC 8461 section 5.1).
    dns.remove('_mta-sts.cached.sts.test');
    expect(outcome(await send(transport(prefix), 'cached.sts.test'))).toBe('deferred:tls_policy_failed');
    expect(mx.messages).toHaveLength(0);
  });

  it('fetches again only when the TXT id changes', async () => {
    const prefix = testRedisPrefix();
    const mx = await peer('127.0.0.2', { tls: 'none' });
    route('refresh.sts.test', [['mx1.tls.test', '127.0.0.2']]);
    publish('refresh.sts.test', 'g1', enforce('mx1.tls.test'));
    expect(outcome(await send(transport(prefix), 'refresh.sts.test'))).toBe('deferred:tls_policy_failed');
    expect(outcome(await send(transport(prefix), 'refresh.sts.test'))).toBe('deferred:tls_policy_failed');
    expect(policyHost.fetches('refresh.sts.test')).toBe(1);
    publish('refresh.sts.test', 'g2', { kind: 'policy', body: mtaStsPolicy('none', []) });
    expect(outcome(await send(transport(prefix), 'refresh.sts.test'))).toBe('accepted');
    expect(policyHost.fetches('refresh.sts.test')).toBe(2);
    expect(mx.messages).toHaveLength(1);
  });

  it('refuses policy hosts on non-public addresses unless ALLOW_PRIVATE_MX, and certificates no trusted CA vouches for', async () => {
    publish('private.sts.test', 'h1', enforce('mx1.tls.test'));
    const resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 5_000 });
    const settings = { trustedCa: [...rootCertificates, readFileSync(POLICY_CA_FILE, 'utf8')], port: policyHost.port, allowPrivate: true };
    expect(await fetchMtaStsPolicy(resolver, 'private.sts.test', settings)).toMatchObject({ kind: 'fetched', policy: { mode: 'enforce', mx: ['mx1.tls.test'] } });
    expect(await fetchMtaStsPolicy(resolver, 'private.sts.test', { ...settings, allowPrivate: false })).toEqual({ kind: 'failed', reason: 'mta-sts.private.sts.test has no public address' });
    const untrusted = await fetchMtaStsPolicy(resolver, 'private.sts.test', { ...settings, trustedCa: [...rootCertificates] });
    expect(untrusted).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/certificate/i) });
  });
});

describe('DANE', () => {
  const certificate = (file: string) => new X509Certificate(readFileSync(file));
  const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
  /** The test MX certificate (for *.tls.test), as `3 1 1` names it. */
  const mxSpki = () => sha256(certificate(TEST_MX_CERT_FILE).publicKey.export({ type: 'spki', format: 'der' }));
  const VALIDATING = { DNSSEC_VALIDATING_RESOLVER: 'true' };

  /** `domain` routed to `host`, with TLSA records at `_25._tcp.<host>`; the MX and TLSA answers authenticated as asked. */
  function publishTlsa(domain: string, host: string, records: Array<[usage: number, selector: number, matchingType: number, data: Buffer]>, secure = { mx: true, tlsa: true }) {
    route(domain, [[host, '127.0.0.2']]);
    dns.set(`_25._tcp.${host}`, records.map(([usage, selector, matchingType, data]) => ({ type: 'TLSA' as const, usage, selector, matchingType, data })));
    dns.secure(domain, secure.mx);
    dns.secure(`_25._tcp.${host}`, secure.tlsa);
  }

  it('DANE-EE: delivers when the certificate matches a TLSA record, whatever its names', async () => {
    const mx = await peer('127.0.0.2');
    publishTlsa('dane.test', 'mx.dane.test', [[3, 1, 1, mxSpki()]]);
    const report = await send(transport(testRedisPrefix(), VALIDATING), 'dane.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tls).toMatchObject({ verified: true });
    expect(report.tlsPolicy).toMatchObject({ applied: 'dane', met: true });
    expect(mx.messages[0]!.tls).toBe(true);
  });

  it.each([
    ['a certificate matching no TLSA record', 'starttls', [[3, 1, 1, Buffer.alloc(32, 1)]]],
    ['no STARTTLS', 'none', [[3, 1, 1, Buffer.alloc(32, 1)]]],
  ] as const)('defers with tls_policy_failed against %s, sending nothing', async (_label, tls, records) => {
    const mx = await peer('127.0.0.2', { tls });
    publishTlsa('dane.test', 'mx.dane.test', records.map((r) => [...r]));
    const report = await send(transport(testRedisPrefix(), VALIDATING), 'dane.test');
    expect(outcome(report)).toBe('deferred:tls_policy_failed');
    expect(report.tlsPolicy).toMatchObject({ applied: 'dane', met: false });
    expect(mx.dataReceived()).toBe(0);
  });

  it('DANE-TA: delivers when the certificate chains to the TLSA record\'s authority and is valid for the MX name', async () => {
    await peer('127.0.0.2');
    const ta = sha256(certificate(TEST_CA_FILE).raw);
    publishTlsa('dane.test', 'mx1.tls.test', [[2, 0, 1, ta]]);
    expect(outcome(await send(transport(testRedisPrefix(), VALIDATING), 'dane.test'))).toBe('accepted');
    publishTlsa('dane-other.test', 'mx.dane-other.test', [[2, 0, 1, ta]]);
    expect(outcome(await send(transport(testRedisPrefix(), VALIDATING), 'dane-other.test'))).toBe('deferred:tls_policy_failed');
  });

  it.each([
    ['the TLSA answer lacks the AD bit', { mx: true, tlsa: false }, VALIDATING],
    ['the MX answer lacks the AD bit', { mx: false, tlsa: true }, VALIDATING],
    ['DNSSEC_VALIDATING_RESOLVER is off', { mx: true, tlsa: true }, {}],
  ])('does not apply when %s: delivers as before', async (_label, secure, env) => {
    const mx = await peer('127.0.0.2');
    publishTlsa('dane.test', 'mx.dane.test', [[3, 1, 1, Buffer.alloc(32, 1)]], secure);
    const report = await send(transport(testRedisPrefix(), env), 'dane.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tlsPolicy.applied).toBe('opportunistic');
    expect(mx.messages).toHaveLength(1);
  });

  it('does not use a host whose TLSA lookup fails under an authenticated MX', async () => {
    const mx = await peer('127.0.0.2');
    route('dane.test', [['mx.dane.test', '127.0.0.2']]);
    dns.secure('dane.test', true);
    dns.fail('_25._tcp.mx.dane.test', 'servfail');
    const report = await send(transport(testRedisPrefix(), { ...VALIDATING, DNS_TIMEOUT: '1s' }), 'dane.test');
    expect(outcome(report)).toBe('deferred:dns_temporary_failure');
    expect(mx.connections()).toBe(0);
  });

  it('takes precedence over MTA-STS, in both directions', async () => {
    const mx = await peer('127.0.0.2');
    // The MTA-STS policy names another host; DANE authenticates this one.
    publishTlsa('dane.sts.test', 'mx.dane.sts.test', [[3, 1, 1, mxSpki()]]);
    publish('dane.sts.test', 'i1', enforce('mx.elsewhere.example'));
    const report = await send(transport(testRedisPrefix(), VALIDATING), 'dane.sts.test');
    expect(outcome(report)).toBe('accepted');
    expect(report.tlsPolicy).toMatchObject({ applied: 'dane', met: true });
    // The MTA-STS policy names this host and its certificate is valid for it, but matches no TLSA record.
    publishTlsa('dane.sts.test', 'mx1.tls.test', [[3, 1, 1, Buffer.alloc(32, 1)]]);
    publish('dane.sts.test', 'i2', enforce('mx1.tls.test'));
    expect(outcome(await send(transport(testRedisPrefix(), VALIDATING), 'dane.sts.test'))).toBe('deferred:tls_policy_failed');
    expect(mx.messages).toHaveLength(1);
  });
});
