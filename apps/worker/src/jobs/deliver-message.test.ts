import { claimMessages, findEmailForOperator, loadMessageContents, releaseLease } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, unseal } from '@mailer/domain';
import { deliverMessageJobId } from '@mailer/queue';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { verifyDkim } from '../testing/verify-dkim';

let h: WorkerHarness;
let setup: SendingSetup;
const peers: TestSmtpServer[] = [];
/** The daemon's clock: the real one unless a test sets a time. */
const clock: { at?: Date } = {};

async function mx(domain: string, address: string, options: Omit<Parameters<typeof startTestSmtpServer>[0], 'host' | 'port'> = {}) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
  h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  const peer = await startTestSmtpServer({ host: address, port: h.smtpPort, ...options });
  peers.push(peer);
  return peer;
}

beforeAll(async () => {
  h = await startWorkerHarness({ RETRY_SCHEDULE: '1s,2s' }, { now: () => clock.at ?? new Date() });
  setup = await h.createSendingSetup({ domain: 'acme.test', displayName: 'Acme Support' });
});
afterEach(async () => {
  clock.at = undefined;
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
afterAll(() => h.close());

describe('a delivered message', () => {
  it('is built once with the display name, alternatives and parts, no Bcc header, DKIM-signed, and sent per domain', async () => {
    const one = await mx('one.test', '127.0.0.2');
    const two = await mx('two.test', '127.0.0.3');
    const emailId = await h.queueEmail(setup, {
      fromName: 'Acme Support',
      to: ['ann@one.test', 'bob@two.test'],
      cc: ['carol@one.test'],
      bcc: ['secret@two.test'],
      subject: 'Your receipt',
      text: 'Thanks for your order.',
      html: '<p>Thanks! <img src="cid:logo@acme"></p>',
      attachments: [
        { filename: 'receipt.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 receipt') },
        { filename: 'logo.png', contentType: 'image/png', contentId: 'logo@acme', content: Buffer.from([137, 80, 78, 71]) },
      ],
    });
    await h.runJob(emailId);

    expect(one.messages.map((m) => m.to)).toEqual([['ann@one.test', 'carol@one.test']]);
    expect(two.messages.map((m) => m.to)).toEqual([['bob@two.test', 'secret@two.test']]);
    expect(one.messages[0]!.from).toBe('hello@acme.test');
    // Built and signed once: every domain receives the same bytes.
    expect(one.messages[0]!.raw.equals(two.messages[0]!.raw)).toBe(true);
    const raw = one.messages[0]!.raw.toString();
    const headers = raw.split('\r\n\r\n')[0]!;
    expect(headers).toMatch(/^From: Acme Support <hello@acme\.test>$/m);
    expect(headers).toMatch(/^To: ann@one\.test, bob@two\.test$/m);
    expect(headers).toMatch(/^Cc: carol@one\.test$/m);
    expect(raw).not.toMatch(/^Bcc:/im);
    expect(raw).not.toContain('secret@two.test');
    expect(raw).toContain('multipart/alternative');
    expect(raw).toContain('filename=receipt.pdf');
    expect(raw).toContain('Content-ID: <logo@acme>');
    expect(headers).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;/m);

    const [signature] = await verifyDkim(one.messages[0]!.raw, h.dns.address);
    expect(signature).toMatchObject({ signingDomain: 'acme.test', selector: setup.domain.dkim.selector, status: { result: 'pass' } });
    expect((signature as unknown as { signingHeaders?: { keys?: string } }).signingHeaders?.keys).toMatch(/From.*Subject.*Date.*Message-ID.*To.*Cc/i);
  });

  it('records attempts, statuses, events and counters, then purges the body', async () => {
    await mx('one.test', '127.0.0.2');
    await mx('two.test', '127.0.0.3');
    const fresh = await h.createSendingSetup({ domain: 'counted.test' });
    const emailId = await h.queueEmail(fresh, {
      to: ['ann@one.test'],
      cc: ['bob@two.test'],
      bcc: ['hidden@two.test'],
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('attached') }],
    });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);

    expect(stored.email).toMatchObject({ status: 'accepted', cause: null, textBody: null, htmlBody: null });
    expect(stored.email.completedAt).toBeInstanceOf(Date);
    expect(stored.email.contentPurgedAt).toBeInstanceOf(Date);
    expect(stored.attachments.map((a) => a.content)).toEqual([null]);
    expect(stored.deliveries.map((d) => [d.recipient, d.status, d.attemptCount, d.leaseExpiresAt])).toEqual([
      ['ann@one.test', 'accepted', 1, null],
      ['bob@two.test', 'accepted', 1, null],
      ['hidden@two.test', 'accepted', 1, null],
    ]);
    const attempts = stored.attempts.map((a) => ({ number: a.number, outcome: a.outcome, recipients: a.recipients, bcc: a.bccRecipients, tls: a.tls, cause: a.cause }));
    expect(attempts.sort((a, b) => a.recipients[0]!.localeCompare(b.recipients[0]!))).toEqual([
      { number: expect.any(Number), outcome: 'accepted', recipients: ['ann@one.test'], bcc: 0, tls: true, cause: null },
      { number: expect.any(Number), outcome: 'accepted', recipients: ['bob@two.test'], bcc: 1, tls: true, cause: null },
    ]);
    expect(stored.attempts.map((a) => a.number).sort()).toEqual([1, 2]);
    expect(stored.attempts.map((a) => a.mxHost).sort()).toEqual(['mx.one.test', 'mx.two.test']);
    // What the transport saw, for operators only (the public detail shows none of it).
    const operator = await findEmailForOperator(h.deps.db, emailId);
    expect(operator!.attempts.find((a) => a.mxHost === 'mx.one.test')).toMatchObject({
      mxAddress: '127.0.0.2',
      reply: { code: 250, enhanced_status: null, text: expect.any(String) },
      tlsVersion: expect.stringMatching(/^TLSv1\.[23]$/),
      tlsCipher: expect.any(String),
      tlsVerified: false,
      tlsPolicy: 'opportunistic',
    });
    const events = stored.events.map((e) => `${e.type}:${e.recipient ?? '-'}`);
    expect(events[0]).toBe('queued:-');
    expect(events.slice(1, 4).sort()).toEqual(['sending:-', 'sending:ann@one.test', 'sending:bob@two.test']);
    expect(events.slice(4).sort()).toEqual(['accepted:-', 'accepted:ann@one.test', 'accepted:bob@two.test']);
    expect(stored.sender).toMatchObject({ acceptedCount: 3, bouncedCount: 0, failedCount: 0, deferredCount: 0 });
  });

  it('is held without its content or signing key, which are read for a batch of builds and are gone once the message is terminal', async () => {
    await mx('held.test', '127.0.0.4');
    const held = await h.queueEmail(setup, { to: ['ann@held.test'], subject: 'Held', text: 'Body of the held one.' });
    const other = await h.queueEmail(setup, {
      to: ['bob@held.test'],
      subject: 'Other',
      html: '<p>Other</p>',
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('attached') }],
    });
    const claims = await claimMessages(h.deps.db, [held, other], h.deps.now(), h.config.worker.leaseMs);
    const context = claims.get(held)!.context;
    expect(Object.keys(context).sort()).toEqual(['domain', 'egressPool', 'email', 'sender', 'sendingPaused']);
    expect(Object.keys(context.domain)).not.toContain('dkimPrivateKeySealed');
    // Messages of one sender claimed together share its sender and domain objects.
    expect(claims.get(other)!.context.sender).toBe(context.sender);
    expect(claims.get(other)!.context.domain).toBe(context.domain);
    for (const { lease } of claims.values()) await releaseLease(h.deps.db, lease, lease.deliveries.map((d) => d.id), h.deps.now());

    const contents = await loadMessageContents(h.deps.db, [held, other, 'em_missing']);
    expect(contents.get(held)).toMatchObject({ to: ['ann@held.test'], subject: 'Held', text: 'Body of the held one.', html: null, hasAttachments: false });
    const [rsa] = contents.get(held)!.signingKeys;
    expect(rsa).toMatchObject({ algorithm: 'rsa', selector: setup.domain.dkim.selector });
    expect(unseal(h.config.encryptionKey, DKIM_SEAL_PURPOSE, rsa!.sealedPrivateKey)).toBe(setup.domain.dkim.privateKeyPem);
    expect(contents.get(other)).toMatchObject({ subject: 'Other', html: '<p>Other</p>', hasAttachments: true });
    expect(contents.has('em_missing')).toBe(false);

    await h.runJob(held);
    expect((await h.readEmail(held)).email.status).toBe('accepted');
    expect((await loadMessageContents(h.deps.db, [held, other])).has(held)).toBe(false);
  });

  it('uses the From display name intake stored, or none', async () => {
    const peer = await mx('one.test', '127.0.0.2');
    await h.runJob(await h.queueEmail(setup, { fromName: 'Billing Team', to: ['ann@one.test'] }));
    await h.runJob(await h.queueEmail(setup, { fromName: null, to: ['ann@one.test'] }));
    expect(peer.messages[0]!.raw.toString()).toMatch(/^From: Billing Team <hello@acme\.test>\r$/m);
    expect(peer.messages[1]!.raw.toString()).toMatch(/^From: hello@acme\.test\r$/m);
  });
});

describe('outcomes', () => {
  it('bounces per recipient and derives the message status and cause', async () => {
    await mx('one.test', '127.0.0.2', { rcpt: (a) => (a.startsWith('gone') ? '550 5.1.1 <gone@one.test>: User unknown in virtual mailbox table' : undefined) });
    const fresh = await h.createSendingSetup({ domain: 'bounce.test' });
    const emailId = await h.queueEmail(fresh, { to: ['ann@one.test', 'gone@one.test'] });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email.status).toBe('bounced');
    expect(stored.email.cause).toEqual({ code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' });
    expect(stored.deliveries.map((d) => d.status)).toEqual(['accepted', 'bounced']);
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]).toMatchObject({ outcome: 'bounced', recipients: ['ann@one.test', 'gone@one.test'] });
    expect(JSON.stringify(stored.attempts[0]!.cause)).not.toContain('virtual mailbox');
    expect(stored.sender).toMatchObject({ acceptedCount: 1, bouncedCount: 1 });
  });

  it('suppresses a to or cc recipient that bounced for good, never a BCC one, in the transaction of the bounce', async () => {
    await mx('one.test', '127.0.0.2', { rcpt: (a) => (a.startsWith('gone') ? '550 5.1.1 <gone>: User unknown' : a.startsWith('full') ? '552 5.2.2 Mailbox full' : undefined) });
    const fresh = await h.createSendingSetup({ domain: 'suppress.test' });
    const emailId = await h.queueEmail(fresh, { to: ['gone-to@one.test', 'full@one.test'], bcc: ['gone-bcc@one.test'] });
    await h.runJob(emailId);
    expect((await h.readEmail(emailId)).deliveries.map((d) => d.status)).toEqual(['bounced', 'bounced', 'bounced']);
    const entries = await h.deps.db`select email, reason, email_id from suppressions where account_id = ${fresh.accountId} order by email`;
    expect(entries.map((e) => ({ ...e }))).toEqual([{ email: 'gone-to@one.test', reason: 'hard_bounce', email_id: emailId }]);
  });

  it('bounces an unknown recipient domain without any SMTP, recording no MX host', async () => {
    const fresh = await h.createSendingSetup({ domain: 'nx.test' });
    const emailId = await h.queueEmail(fresh, { to: ['ann@does-not-exist.test'] });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'bounced', cause: { code: 'recipient_domain_not_found', permanent: true } });
    expect(stored.attempts[0]).toMatchObject({ outcome: 'bounced', mxHost: null, tls: false });
  });

  it('defers with a retry at the first step of the schedule, then delivers on the retry job', async () => {
    const peer = await mx('one.test', '127.0.0.2', { data: { kind: 'reply', reply: '451 4.7.1 Greylisted, try again later' } });
    const fresh = await h.createSendingSetup({ domain: 'retry.test' });
    const emailId = await h.queueEmail(fresh, { to: ['ann@one.test'] });
    await h.runJob(emailId);
    let stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'deferred', cause: { code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' } });
    const next = stored.deliveries[0]!.nextAttemptAt.getTime();
    // The schedule's first step (1 s, ±10 % jitter) after the attempt ended.
    const delay = next - stored.attempts[0]!.endedAt.getTime();
    expect(delay).toBeGreaterThanOrEqual(900);
    expect(delay).toBeLessThanOrEqual(1_100);
    expect(stored.sender.deferredCount).toBe(1);
    const job = await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(emailId, stored.deliveries[0]!.nextAttemptAt));
    expect(job?.data).toEqual({ emailIds: [emailId], accountId: fresh.accountId });

    peer.behavior.data = { kind: 'accept' };
    // A job run before the retry is due finds nothing to attempt.
    clock.at = new Date(next - 100);
    await h.runJob(emailId);
    expect((await h.readEmail(emailId)).email.status).toBe('deferred');
    expect(peer.messages).toHaveLength(0);
    clock.at = new Date(next + 50);
    await h.runJob(emailId);
    stored = await h.readEmail(emailId);
    expect(stored.email.status).toBe('accepted');
    expect(stored.deliveries[0]).toMatchObject({ status: 'accepted', attemptCount: 2 });
    expect(stored.attempts.map((a) => [a.number, a.outcome])).toEqual([[1, 'deferred'], [2, 'accepted']]);
    expect(stored.events.map((e) => e.type)).toEqual(['queued', 'sending', 'deferred', 'sending', 'accepted']);
    expect(stored.sender).toMatchObject({ deferredCount: 0, acceptedCount: 1 });
  });

  it('defers require_tls without STARTTLS, never sending the message', async () => {
    const peer = await mx('plain.test', '127.0.0.2', { tls: 'none' });
    const strict = await h.createSendingSetup({ domain: 'strict.test', policy: 'require_tls' });
    const emailId = await h.queueEmail(strict, { to: ['ann@plain.test'] });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'deferred', cause: { code: 'tls_required_unavailable' } });
    expect(stored.attempts[0]).toMatchObject({ outcome: 'deferred', tls: false });
    expect(peer.dataReceived()).toBe(0);
  });

  it('logs the message id and never a BCC address or content', async () => {
    await mx('one.test', '127.0.0.2');
    const emailId = await h.queueEmail(setup, { to: ['ann@one.test'], bcc: ['blind-copy@one.test'], text: 'TOP-SECRET-BODY' });
    await h.runJob(emailId);
    const lines = h.logLines().filter((l) => l.email_id === emailId);
    expect(lines.some((l) => l.message === 'attempt recorded')).toBe(true);
    const all = JSON.stringify(h.logLines());
    expect(all).not.toContain('blind-copy');
    expect(all).not.toContain('TOP-SECRET-BODY');
  });
});
