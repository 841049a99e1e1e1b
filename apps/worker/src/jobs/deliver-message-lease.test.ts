import { claimMessages, writeAttempts } from '@mailer/db';
import { deliverMessageJobId } from '@mailer/queue';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { deferDeliveries, startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

let h: WorkerHarness;
let peer: TestSmtpServer;

beforeAll(async () => {
  h = await startWorkerHarness({ RETRY_SCHEDULE: '1m', MAX_DELIVERY_AGE: '1h' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
});
beforeEach(async () => {
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterEach(() => peer.close());
afterAll(() => h.close());

/** Leases the message's deliveries until `expiresAt`, as another worker sending them holds them. */
const leaseDeliveries = (emailId: string, expiresAt: Date) =>
  h.deps.db`update deliveries set status = ${'sending'}, lease_expires_at = ${expiresAt}, lease_token = ${'another-worker'} where email_id = ${emailId}`;

describe('leases', () => {
  it('sends a message once when two jobs for it run at the same time', async () => {
    const setup = await h.createSendingSetup({ domain: 'twice.test' });
    peer.behavior.data = { kind: 'delay', ms: 200 };
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test', 'bob@rcpt.test'] });
    await Promise.all([h.runJob(emailId), h.runJob(emailId), h.runJob(emailId)]);
    expect(peer.messages).toHaveLength(1);
    const stored = await h.readEmail(emailId);
    expect(stored.email.status).toBe('accepted');
    expect(stored.attempts).toHaveLength(1);
    expect(stored.events.filter((e) => e.type === 'sending')).toHaveLength(2);
  });

  it('never sends a delivery that is no longer owed, and schedules the one due later', async () => {
    const setup = await h.createSendingSetup({ domain: 'owed.test' });
    const done = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    await h.runJob(done);
    await h.runJob(done);
    expect(peer.messages).toHaveLength(1);

    const later = await h.queueEmail(setup, { to: ['bob@rcpt.test'] });
    const due = new Date(Date.now() + 60_000);
    await deferDeliveries(h.deps.db, [later], due);
    await h.runJob(later);
    expect(peer.messages).toHaveLength(1);
    expect(await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(later, due))).toBeDefined();
  });

  it('delivers the due deliveries of a message whose others wait for a retry, deriving its status from all of them', async () => {
    const setup = await h.createSendingSetup({ domain: 'partial.test' });
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test', 'bob@rcpt.test'] });
    const later = new Date(Date.now() + 3_600_000);
    await deferDeliveries(h.deps.db, [emailId], later, {
      recipient: 'bob@rcpt.test',
      cause: { code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' },
    });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.deliveries.map((d) => [d.recipient, d.status])).toEqual([
      ['ann@rcpt.test', 'accepted'],
      ['bob@rcpt.test', 'deferred'],
    ]);
    expect(stored.email).toMatchObject({ status: 'deferred', cause: { code: 'greylisted' }, completedAt: null });
    expect(peer.messages.map((m) => m.to)).toEqual([['ann@rcpt.test']]);
    expect(await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(emailId, later))).toBeDefined();
  });

  it('takes over deliveries whose lease expired, and leaves a live lease alone until it expires', async () => {
    const setup = await h.createSendingSetup({ domain: 'takeover.test' });
    const crashed = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    await leaseDeliveries(crashed, new Date(Date.now() - 1_000));
    await h.runJob(crashed);
    expect((await h.readEmail(crashed)).email.status).toBe('accepted');
    expect(peer.messages).toHaveLength(1);

    const busy = await h.queueEmail(setup, { to: ['bob@rcpt.test'] });
    const expiry = new Date(Date.now() + 60_000);
    await leaseDeliveries(busy, expiry);
    await h.runJob(busy);
    expect(peer.messages).toHaveLength(1);
    expect(await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(busy, expiry))).toBeDefined();
  });

  it('records nothing over a lease another worker took meanwhile', async () => {
    const setup = await h.createSendingSetup({ domain: 'lost.test' });
    // The final dot's reply waits long enough for the lease to change hands while the transaction waits for it.
    peer.behavior.data = { kind: 'delay', ms: 2_000 };
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    const running = h.runJob(emailId);
    while (peer.dataReceived() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const theirs = new Date(Date.now() + 120_000);
    await leaseDeliveries(emailId, theirs);
    await running;
    const stored = await h.readEmail(emailId);
    expect(stored.deliveries[0]).toMatchObject({ status: 'sending', leaseExpiresAt: theirs, attemptCount: 0 });
    expect(stored.attempts).toHaveLength(0);
    expect(h.logLines().some((l) => l.email_id === emailId && l.lease_lost === 1)).toBe(true);
  });
});

describe('attempts written together', () => {
  it('many concurrent jobs: each attempt lands whole, the counters add up', async () => {
    const setup = await h.createSendingSetup({ domain: 'batched.test' });
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => h.queueEmail(setup, { to: [`b${i}@rcpt.test`] })));
    await Promise.all(ids.map((id) => h.runJob(id)));
    for (const id of ids) {
      const stored = await h.readEmail(id);
      expect(stored.email.status).toBe('accepted');
      expect(stored.attempts.map((a) => a.number)).toEqual([1]);
      expect(stored.events.map((e) => e.type)).toEqual(['queued', 'sending', 'accepted']);
    }
    expect((await h.readEmail(ids[0]!)).sender).toMatchObject({ acceptedCount: 30, deferredCount: 0 });
  });

  it('writes an attempt whose lease holds and nothing of one whose lease was lost, in one statement', async () => {
    const setup = await h.createSendingSetup({ domain: 'mixed-batch.test' });
    const [kept, lost] = [await h.queueEmail(setup, { to: ['k@rcpt.test'] }), await h.queueEmail(setup, { to: ['l@rcpt.test'] })];
    const now = new Date();
    const claims = await claimMessages(h.deps.db, [kept, lost], now, 60_000);
    const [a, b] = [claims.get(kept)!.lease, claims.get(lost)!.lease];
    await leaseDeliveries(lost, new Date(now.getTime() + 90_000));
    const write = (l: typeof a) => ({
      lease: l,
      attempt: { startedAt: now, endedAt: now, outcome: 'accepted' as const, cause: null, transport: null },
      decisions: [{ deliveryId: l.deliveries[0]!.id, status: 'accepted' as const, cause: null }],
    });
    expect((await writeAttempts(h.deps.db, [write(a), write(b)])).map((r) => r.applied)).toEqual([1, 0]);
    expect((await h.readEmail(kept)).email.status).toBe('accepted');
    const untouched = await h.readEmail(lost);
    expect(untouched.email.status).toBe('sending');
    expect(untouched.attempts).toHaveLength(0);
    expect(untouched.deliveries[0]!.status).toBe('sending');
  });
});

describe('local decisions', () => {
  it("fails every pending delivery of a deleted sender with sender_disabled, without SMTP", async () => {
    const setup = await h.createSendingSetup({ domain: 'gone.test' });
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test', 'bob@rcpt.test'] });
    // One delivery waits for a retry an hour from now, counted as deferred.
    await deferDeliveries(h.deps.db, [emailId], new Date(Date.now() + 3_600_000), { recipient: 'bob@rcpt.test' });
    await h.deps.db`update senders set deferred_count = ${1} where id = ${setup.sender.id}`;
    await h.deps.db`update senders set deleted_at = ${new Date()}, configured_state = ${'disabled'} where id = ${setup.sender.id}`;
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'failed', cause: { code: 'sender_disabled', permanent: true } });
    expect(stored.deliveries.map((d) => [d.status, d.cause?.code])).toEqual([
      ['failed', 'sender_disabled'],
      ['failed', 'sender_disabled'],
    ]);
    expect(stored.attempts[0]).toMatchObject({ outcome: 'failed', mxHost: null, tls: false });
    expect(stored.sender).toMatchObject({ failedCount: 2, deferredCount: 0 });
    expect(peer.connections()).toBe(0);
    expect(stored.email.textBody).toBeNull();
  });

  it('defers with domain_not_ready when the sending domain stopped being ready', async () => {
    const setup = await h.createSendingSetup({ domain: 'unready.test' });
    await h.deps.db`update domains set dkim_status = ${'mismatch'} where id = ${setup.domain.id}`;
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'deferred', cause: { code: 'domain_not_ready', permanent: false } });
    expect(stored.deliveries[0]!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(peer.connections()).toBe(0);
  });

  it('gives up with retries_exhausted once a delivery has had an attempt and is older than MAX_DELIVERY_AGE', async () => {
    const setup = await h.createSendingSetup({ domain: 'old.test' });
    peer.behavior.rcpt = () => '450 4.2.0 Mailbox busy';
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test'], createdAt: new Date(Date.now() - 2 * 3_600_000) });
    await h.runJob(emailId);
    const stored = await h.readEmail(emailId);
    expect(stored.email).toMatchObject({ status: 'failed', cause: { code: 'retries_exhausted', permanent: true, smtp_code: 450, enhanced_status: '4.2.0' } });
    expect(stored.attempts[0]).toMatchObject({ outcome: 'deferred', cause: { code: 'remote_temporary_failure' } });
    expect(stored.sender).toMatchObject({ failedCount: 1, deferredCount: 0 });
    expect(stored.email.completedAt).toBeInstanceOf(Date);
    const [counted] = await h.deps.db`
      select count(*)::int as owed from deliveries where email_id = ${emailId} and status = any(${['queued', 'sending', 'deferred']}::text[])`;
    expect(counted!.owed).toBe(0);
  });
});
