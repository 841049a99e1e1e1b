import { createServer, type Server } from 'node:net';
import type { TransportSecurityPolicy } from '@mailer/domain';
import type { TestDnsServer } from '@mailer/testing';
import { startTransportHarness, type TransportHarness } from '../testing/transport-harness';
import { deliverToHosts, routeDomain, type TransactionReport, type TransportContext } from './smtp-transport';

let h: TransportHarness;
let dns: TestDnsServer;
let port: number;

const MESSAGE = Buffer.from('From: hello@sender.test\r\nTo: ann@ok.test\r\nSubject: Hi\r\nMessage-ID: <1@sender.test>\r\n\r\nHello.\r\n');

const transport = (env: Record<string, string> = {}) => h.transport(env);
const peer: TransportHarness['peer'] = (host, options) => h.peer(host, options);

/** `domain` gets one MX, `mx`, at `address`. */
function route(domain: string, mx: string, address: string) {
  dns.set(domain, [{ type: 'MX', exchange: mx, priority: 10 }]);
  dns.set(mx, [{ type: 'A', address }]);
}

/** Routes the domain and sends to its hosts, as a held message's transaction does. */
async function send(
  ctx: TransportContext,
  domain: string,
  recipients: string[],
  policy: TransportSecurityPolicy = 'opportunistic',
  signal = AbortSignal.timeout(20_000),
): Promise<TransactionReport> {
  const route = await routeDomain(ctx, domain, signal);
  if (route.kind === 'hosts') return deliverToHosts(ctx, route.hosts, { domain, from: 'hello@sender.test', recipients, message: MESSAGE, policy, mtaSts: route.mtaSts, signal });
  const outcomes = new Map(recipients.map((r) => [r, route.outcome]));
  return { outcomes, replies: new Map(), tls: null, mxHost: null, mxAddress: null, connected: false, tlsPolicy: { applied: policy, met: null, failure: null } };
}

const summary = (report: Awaited<ReturnType<typeof send>>) =>
  Object.fromEntries([...report.outcomes].map(([r, o]) => [r, o.cause ? `${o.outcome}:${o.cause.code}` : o.outcome]));

beforeAll(async () => {
  h = await startTransportHarness();
  ({ dns, smtpPort: port } = h);
});
afterEach(() => h.reset());
afterAll(() => h.close());

describe('TLS policies', () => {
  it('opportunistic: STARTTLS when offered, plain when not', async () => {
    const ctx = transport();
    const tlsPeer = await peer('127.0.0.2');
    const plainPeer = await peer('127.0.0.3', { tls: 'none' });
    route('tls.example', 'mx1.tls.test', '127.0.0.2');
    route('plain.example', 'mx.plain.example', '127.0.0.3');
    const secure = await send(ctx, 'tls.example', ['ann@tls.example']);
    const plain = await send(ctx, 'plain.example', ['bob@plain.example']);
    expect(summary(secure)).toEqual({ 'ann@tls.example': 'accepted' });
    expect(secure).toMatchObject({ tls: { version: expect.stringMatching(/^TLSv1\.[23]$/), verified: true }, mxHost: 'mx1.tls.test', mxAddress: '127.0.0.2' });
    expect(secure.tls!.cipher).not.toBe('unknown');
    expect(secure.replies.get('ann@tls.example')).toMatch(/^250 /);
    expect(summary(plain)).toEqual({ 'bob@plain.example': 'accepted' });
    expect(plain.tls).toBeNull();
    expect(tlsPeer.messages[0]!.tls).toBe(true);
    expect(plainPeer.messages[0]!.tls).toBe(false);
  });

  it('opportunistic: a failed TLS handshake is followed by a new plain connection', async () => {
    const broken = await peer('127.0.0.2', { tls: 'broken_handshake' });
    route('broken.example', 'mx1.tls.test', '127.0.0.2');
    const report = await send(transport(), 'broken.example', ['ann@broken.example']);
    expect(summary(report)).toEqual({ 'ann@broken.example': 'accepted' });
    expect(report.tls).toBeNull();
    expect(broken.connections()).toBe(2);
    expect(broken.messages).toHaveLength(1);
  });

  it('opportunistic: any certificate and protocol version will do', async () => {
    await peer('127.0.0.2', { tls: 'untrusted' });
    await peer('127.0.0.3', { tls: 'tls1.1' });
    route('untrusted.example', 'mx.untrusted.example', '127.0.0.2');
    route('old.example', 'mx.old.example', '127.0.0.3');
    const ctx = transport();
    expect(await send(ctx, 'untrusted.example', ['a@untrusted.example'])).toMatchObject({ tls: { verified: false } });
    expect(await send(ctx, 'old.example', ['a@old.example'])).toMatchObject({ tls: { version: 'TLSv1.1' } });
  });

  it('require_tls: delivers over TLS 1.2+ with a certificate valid for the MX host name', async () => {
    const tlsPeer = await peer('127.0.0.2');
    route('secure.example', 'mx2.tls.test', '127.0.0.2');
    const report = await send(transport(), 'secure.example', ['ann@secure.example'], 'require_tls');
    expect(summary(report)).toEqual({ 'ann@secure.example': 'accepted' });
    expect(report.tls).toMatchObject({ verified: true });
    expect(tlsPeer.messages[0]!.tls).toBe(true);
  });

  it.each([
    ['no STARTTLS', 'none', 'mx1.tls.test'],
    ['an untrusted certificate', 'untrusted', 'untrusted.tls.test'],
    ['a certificate for another name', 'starttls', 'mx.elsewhere.example'],
    ['only TLS 1.1', 'tls1.1', 'mx1.tls.test'],
  ] as const)('require_tls: defers with tls_required_unavailable against %s, sending nothing', async (_label, tls, mx) => {
    const target = await peer('127.0.0.2', { tls });
    route('strict.example', mx, '127.0.0.2');
    const report = await send(transport(), 'strict.example', ['ann@strict.example'], 'require_tls');
    expect(summary(report)).toEqual({ 'ann@strict.example': 'deferred:tls_required_unavailable' });
    expect(report.outcomes.get('ann@strict.example')!.cause).toMatchObject({ permanent: false });
    expect(target.connections()).toBeGreaterThan(0);
    expect(target.dataReceived()).toBe(0);
    expect(target.messages).toHaveLength(0);
  });
});

describe('routing', () => {
  it('tries the next MX within the same attempt when one cannot be reached', async () => {
    const backup = await peer('127.0.0.3');
    dns.set('fallback.example', [
      { type: 'MX', exchange: 'down.fallback.example', priority: 10 },
      { type: 'MX', exchange: 'gone.fallback.example', priority: 15 },
      { type: 'MX', exchange: 'up.fallback.example', priority: 20 },
    ]);
    dns.set('down.fallback.example', [{ type: 'A', address: '127.0.0.9' }]);
    dns.set('up.fallback.example', [{ type: 'A', address: '127.0.0.3' }]);
    const report = await send(transport(), 'fallback.example', ['ann@fallback.example']);
    expect(summary(report)).toEqual({ 'ann@fallback.example': 'accepted' });
    expect(report.mxHost).toBe('up.fallback.example');
    expect(backup.messages).toHaveLength(1);
  });

  it('tries at most 2 MX hosts and 5 addresses in all per attempt (3 hosts with 4 addresses each)', async () => {
    const tried: string[] = [];
    const hangUps = await Promise.all(
      [1, 2, 3].flatMap((h) => [1, 2, 3, 4].map((a) => `127.0.${h}.${a}`)).map(
        (address) =>
          new Promise<Server>((resolve) => {
            const server = createServer((socket) => {
              tried.push(address);
              socket.destroy();
            });
            server.listen(port, address, () => resolve(server));
          }),
      ),
    );
    dns.set('wide.example', [1, 2, 3].map((h) => ({ type: 'MX' as const, exchange: `mx${h}.wide.example`, priority: h })));
    for (const h of [1, 2, 3]) dns.set(`mx${h}.wide.example`, [1, 2, 3, 4].map((a) => ({ type: 'A' as const, address: `127.0.${h}.${a}` })));
    const report = await send(transport(), 'wide.example', ['a@wide.example']);
    await Promise.all(hangUps.map((server) => new Promise((resolve) => server.close(resolve))));
    expect(summary(report)).toEqual({ 'a@wide.example': 'deferred:connection_failed' });
    expect(report.connected).toBe(false);
    // The first host's 4 addresses, then one of the second host's; the third host never.
    expect(tried).toHaveLength(5);
    expect(tried.filter((a) => a.startsWith('127.0.1.')).sort()).toEqual(['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4']);
    expect(tried[4]).toMatch(/^127\.0\.2\./);
  });

  it('tries the next address of an MX host', async () => {
    await peer('127.0.0.3');
    dns.set('multi.example', [{ type: 'MX', exchange: 'mx.multi.example', priority: 10 }]);
    dns.set('mx.multi.example', [{ type: 'A', address: '127.0.0.9' }, { type: 'A', address: '127.0.0.3' }]);
    // Addresses are tried in the resolver's order; either order must end at the live one.
    expect(summary(await send(transport(), 'multi.example', ['ann@multi.example']))).toEqual({ 'ann@multi.example': 'accepted' });
  });

  it('delivers to the domain itself when it has no MX (implicit MX)', async () => {
    const target = await peer('127.0.0.2');
    dns.set('implicit.example', [{ type: 'A', address: '127.0.0.2' }]);
    const report = await send(transport(), 'implicit.example', ['ann@implicit.example']);
    expect(summary(report)).toEqual({ 'ann@implicit.example': 'accepted' });
    expect(report.mxHost).toBe('implicit.example');
    expect(target.messages).toHaveLength(1);
  });

  it('bounces a null MX and NXDOMAIN, defers a temporary DNS failure and unreachable MX hosts', async () => {
    dns.set('null.example', [{ type: 'MX', exchange: '.', priority: 0 }]);
    dns.fail('servfail.example', 'servfail');
    route('down.example', 'mx.down.example', '127.0.0.9');
    dns.set('flaky-mx.example', [{ type: 'MX', exchange: 'mx.flaky-mx.example', priority: 10 }]);
    dns.fail('mx.flaky-mx.example', 'servfail');
    const ctx = transport();
    expect(summary(await send(ctx, 'null.example', ['a@null.example']))).toEqual({ 'a@null.example': 'bounced:no_mail_server' });
    expect(summary(await send(ctx, 'nowhere.example', ['a@nowhere.example']))).toEqual({ 'a@nowhere.example': 'bounced:recipient_domain_not_found' });
    expect(summary(await send(ctx, 'servfail.example', ['a@servfail.example']))).toEqual({ 'a@servfail.example': 'deferred:dns_temporary_failure' });
    expect(summary(await send(ctx, 'down.example', ['a@down.example']))).toEqual({ 'a@down.example': 'deferred:connection_failed' });
    expect(summary(await send(ctx, 'flaky-mx.example', ['a@flaky-mx.example']))).toEqual({ 'a@flaky-mx.example': 'deferred:dns_temporary_failure' });
  });

  it('refuses non-public MX addresses unless ALLOW_PRIVATE_MX', async () => {
    const target = await peer('127.0.0.2');
    route('private.example', 'mx.private.example', '127.0.0.2');
    const report = await send(transport({ ALLOW_PRIVATE_MX: 'false' }), 'private.example', ['a@private.example']);
    expect(summary(report)).toEqual({ 'a@private.example': 'deferred:connection_failed' });
    expect(target.connections()).toBe(0);
  });
});

describe('replies', () => {
  it('applies RCPT replies per recipient and the final reply to those accepted at RCPT, in one transaction', async () => {
    const target = await peer('127.0.0.2', {
      rcpt: (address) => (address.startsWith('unknown') ? '550 5.1.1 User unknown' : address.startsWith('full') ? '452 4.2.2 Mailbox full' : undefined),
    });
    route('mixed.example', 'mx.mixed.example', '127.0.0.2');
    const recipients = ['ann@mixed.example', 'unknown@mixed.example', 'full@mixed.example', 'bob@mixed.example'];
    const report = await send(transport(), 'mixed.example', recipients);
    expect(summary(report)).toEqual({
      'ann@mixed.example': 'accepted',
      'bob@mixed.example': 'accepted',
      'unknown@mixed.example': 'bounced:recipient_unknown',
      'full@mixed.example': 'deferred:mailbox_full',
    });
    expect(report.outcomes.get('unknown@mixed.example')!.cause).toEqual({ code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' });
    expect(target.messages).toHaveLength(1);
    expect(target.messages[0]!.to).toEqual(['ann@mixed.example', 'bob@mixed.example']);

    target.behavior.data = { kind: 'reply', reply: '554 5.7.1 Message rejected as spam' };
    const rejected = await send(transport(), 'mixed.example', recipients);
    expect(summary(rejected)).toMatchObject({ 'ann@mixed.example': 'bounced:message_rejected', 'unknown@mixed.example': 'bounced:recipient_unknown', 'full@mixed.example': 'deferred:mailbox_full' });
  });

  it('defers greylisting at DATA and a refused MAIL FROM for everyone', async () => {
    const target = await peer('127.0.0.2', { data: { kind: 'reply', reply: '451 4.7.1 Greylisted, please try again later' } });
    route('grey.example', 'mx.grey.example', '127.0.0.2');
    const ctx = transport();
    expect(summary(await send(ctx, 'grey.example', ['a@grey.example']))).toEqual({ 'a@grey.example': 'deferred:greylisted' });
    target.behavior.mailFrom = '421 4.7.0 Too many connections from your host';
    expect(summary(await send(ctx, 'grey.example', ['a@grey.example', 'b@grey.example']))).toEqual({
      'a@grey.example': 'deferred:rate_limited_by_recipient',
      'b@grey.example': 'deferred:rate_limited_by_recipient',
    });
  });

  it('defers a connection dropped before the final dot; after it the message may have arrived (the duplicate case)', async () => {
    const before = await peer('127.0.0.2', { data: { kind: 'drop_before_dot' } });
    const after = await peer('127.0.0.3', { data: { kind: 'drop_after_dot' } });
    route('before.example', 'mx.before.example', '127.0.0.2');
    route('after.example', 'mx.after.example', '127.0.0.3');
    const ctx = transport();
    expect(summary(await send(ctx, 'before.example', ['a@before.example']))).toEqual({ 'a@before.example': 'deferred:connection_lost' });
    expect(before.messages).toHaveLength(0);
    expect(summary(await send(ctx, 'after.example', ['a@after.example']))).toEqual({ 'a@after.example': 'deferred:connection_lost' });
    expect(after.messages).toHaveLength(1);
  });

  it('times out a peer that never greets and one that never answers the final dot', async () => {
    await peer('127.0.0.2', { silent: true });
    const slow = await peer('127.0.0.3', { data: { kind: 'never_answer' } });
    route('silent.example', 'mx.silent.example', '127.0.0.2');
    route('slow.example', 'mx.slow.example', '127.0.0.3');
    expect(summary(await send(transport({ SMTP_CONNECT_TIMEOUT: '500ms' }), 'silent.example', ['a@silent.example']))).toEqual({ 'a@silent.example': 'deferred:timeout' });
    // The command timeout is longer than the test may run: only SMTP_DATA_TIMEOUT can end the wait at the final dot.
    const patientCommands = transport({ SMTP_COMMAND_TIMEOUT: '10m', SMTP_DATA_TIMEOUT: '700ms' });
    expect(summary(await send(patientCommands, 'slow.example', ['a@slow.example']))).toEqual({ 'a@slow.example': 'deferred:timeout' });
    // At the final dot: the whole message went before the wait began.
    expect(slow.dataReceived()).toBe(1);
  });

  it('awaits the final-dot reply for SMTP_DATA_TIMEOUT, longer than the command timeout', async () => {
    // A command timeout every other reply meets on a loaded machine, and a final-dot reply that takes longer.
    const target = await peer('127.0.0.2', { data: { kind: 'delay', ms: 3_000 } });
    route('patient.example', 'mx.patient.example', '127.0.0.2');
    const report = await send(transport({ SMTP_COMMAND_TIMEOUT: '2s', SMTP_DATA_TIMEOUT: '30s' }), 'patient.example', ['a@patient.example']);
    expect(summary(report)).toEqual({ 'a@patient.example': 'accepted' });
    expect(target.messages).toHaveLength(1);
  });
});

describe('connections', () => {
  it('reuses a connection across messages (no RSET after a completed transaction) and closes it when idle', async () => {
    const target = await peer('127.0.0.2', { tls: 'none' });
    route('reuse.example', 'mx1.tls.test', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '300ms' });
    for (let i = 0; i < 3; i++) expect(summary(await send(ctx, 'reuse.example', [`u${i}@reuse.example`]))).toEqual({ [`u${i}@reuse.example`]: 'accepted' });
    expect(target.connections()).toBe(1);
    expect(new Set(target.messages.map((m) => m.sessionId)).size).toBe(1);
    expect(target.commands()).toEqual(['EHLO', ...Array.from({ length: 3 }, () => ['MAIL', 'RCPT', 'DATA']).flat()]);
    expect(ctx.pool.size()).toBe(1);
    for (const deadline = Date.now() + 10_000; ctx.pool.size() > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ctx.pool.size()).toBe(0);
    await send(ctx, 'reuse.example', ['later@reuse.example']);
    expect(target.connections()).toBe(2);
  });

  it('opens a new connection when the pooled one was closed by the server', async () => {
    const target = await peer('127.0.0.2');
    route('stale.example', 'mx.stale.example', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '10s' });
    await send(ctx, 'stale.example', ['a@stale.example']);
    await target.close();
    const revived = await peer('127.0.0.2');
    expect(summary(await send(ctx, 'stale.example', ['b@stale.example']))).toEqual({ 'b@stale.example': 'accepted' });
    expect(revived.messages).toHaveLength(1);
  });

  it('sends RSET before reusing a connection whose transaction was cut short', async () => {
    const target = await peer('127.0.0.2', { tls: 'none', rcpt: () => '550 5.1.1 User unknown' });
    route('cut.example', 'mx.cut.example', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '10s' });
    expect(summary(await send(ctx, 'cut.example', ['a@cut.example']))).toEqual({ 'a@cut.example': 'bounced:recipient_unknown' });
    target.behavior.rcpt = () => undefined;
    expect(summary(await send(ctx, 'cut.example', ['b@cut.example']))).toEqual({ 'b@cut.example': 'accepted' });
    expect(target.connections()).toBe(1);
    expect(target.commands()).toEqual(['EHLO', 'MAIL', 'RCPT', 'DATA', 'RSET', 'MAIL', 'RCPT', 'DATA']);
  });

  it('sends again on a new connection when a pooled one turns out closed before the message (421 at MAIL FROM)', async () => {
    const target = await peer('127.0.0.2');
    route('tired.example', 'mx.tired.example', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '10s' });
    await send(ctx, 'tired.example', ['a@tired.example']);
    const first = target.messages[0]!.sessionId;
    target.behavior.mailFrom = (sessionId) => (sessionId === first ? '421 4.7.0 Too many messages on this connection' : undefined);
    expect(summary(await send(ctx, 'tired.example', ['b@tired.example']))).toEqual({ 'b@tired.example': 'accepted' });
    expect(target.connections()).toBe(2);
    expect(target.messages.map((m) => m.sessionId === first)).toEqual([true, false]);
  });

  it.each([
    ['a rate reply: rate_limited_by_recipient', '421 4.7.0 Too many recipients from your host, try again later', 'rate_limited_by_recipient'],
    ['a policy (4.7.x) reply: rate_limited_by_recipient', '421 4.7.1 Service not available', 'rate_limited_by_recipient'],
    ['any other reply: connection_lost', '421 4.3.2 System shutting down', 'connection_lost'],
  ])('ends the transaction at a 421 to RCPT on a reused connection without replaying it (%s)', async (_label, reply, cause) => {
    const target = await peer('127.0.0.2', { tls: 'none' });
    route('closing.example', 'mx.closing.example', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '10s' });
    expect(summary(await send(ctx, 'closing.example', ['a@closing.example']))).toEqual({ 'a@closing.example': 'accepted' });
    target.behavior.rcpt = (address) => (address.startsWith('second') ? reply : undefined);
    const report = await send(ctx, 'closing.example', ['first@closing.example', 'second@closing.example', 'third@closing.example']);
    expect(summary(report)).toEqual({
      'first@closing.example': `deferred:${cause}`,
      'second@closing.example': `deferred:${cause}`,
      'third@closing.example': `deferred:${cause}`,
    });
    expect(report.outcomes.get('second@closing.example')!.cause).toMatchObject({ smtp_code: 421, enhanced_status: reply.split(' ')[1] });
    expect(target.connections()).toBe(1);
    expect(target.commands().filter((c) => c === 'MAIL')).toHaveLength(2);
    expect(target.messages).toHaveLength(1);
  });

  it('ends the transaction at a 421 to DATA on a reused connection without replaying it', async () => {
    const target = await peer('127.0.0.2', { tls: 'none' });
    route('closing.example', 'mx.closing.example', '127.0.0.2');
    const ctx = transport({ SMTP_POOL_IDLE: '10s' });
    await send(ctx, 'closing.example', ['a@closing.example']);
    target.behavior.data = { kind: 'reply', reply: '421 4.3.2 System shutting down' };
    expect(summary(await send(ctx, 'closing.example', ['b@closing.example']))).toEqual({ 'b@closing.example': 'deferred:connection_lost' });
    expect(target.connections()).toBe(1);
  });
});
