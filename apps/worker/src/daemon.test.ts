import { deliverMessageJobId } from '@mailer/queue';
import { startTestSmtpServer, TransactionGauge, type TestSmtpServer } from '@mailer/testing';
import { deferDeliveries, startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;

/** Deletes every Redis key of this test's prefix: a FLUSHALL that spares other test files. */
async function flushTestKeys() {
  const keys = await h.deps.producerRedis.keys(`${h.config.redisPrefix}:*`);
  if (keys.length > 0) await h.deps.producerRedis.del(...keys);
}

beforeAll(async () => {
  // A grace period that an attempt of a few hundred milliseconds fits in whatever the machine's load, and that a
  // silent peer outlasts by far (its greeting is awaited for SMTP_CONNECT_TIMEOUT and SMTP_COMMAND_TIMEOUT).
  h = await startWorkerHarness({ WORKER_SHUTDOWN_GRACE: '3s', SMTP_CONNECT_TIMEOUT: '30s', SMTP_COMMAND_TIMEOUT: '30s', RETRY_SCHEDULE: '1m' });
  setup = await h.createSendingSetup({ domain: 'daemon.test' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
});
beforeEach(async () => {
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterEach(() => peer.close());
afterAll(() => h.close());

describe('the delivery daemon', () => {
  it('delivers what the queue hands it', async () => {
    const daemon = h.startDaemon();
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => h.queueEmail(setup, { to: [`u${i}@rcpt.test`] })));
    for (const id of ids) await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() });
    for (const id of ids) await h.waitForStatus(id, ['accepted']);
    expect(peer.messages).toHaveLength(5);
    await daemon.stop();
  });

  it('delivers every message of a job that carries several, never more transactions in flight than WORKER_CONCURRENCY', async () => {
    const transactions = new TransactionGauge();
    const first = await startTestSmtpServer({ host: '127.0.0.6', port: h.smtpPort, data: { kind: 'delay', ms: 200 }, transactions });
    const second = await startTestSmtpServer({ host: '127.0.0.5', port: h.smtpPort, data: { kind: 'delay', ms: 200 }, transactions });
    for (const [name, address] of [['rcpt1.test', '127.0.0.6'], ['rcpt2.test', '127.0.0.5']] as const) {
      h.dns.set(name, [{ type: 'MX', exchange: `mx.${name}`, priority: 10 }]);
      h.dns.set(`mx.${name}`, [{ type: 'A', address }]);
    }
    const dueAt = new Date();
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => h.queueEmail(setup, { to: [`t${i}@rcpt${1 + (i % 2)}.test`] })));
    await h.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt })));
    expect(await h.deps.deliveryQueue.queue.getJobCounts('waiting')).toEqual({ waiting: 3 });
    const daemon = h.startDaemon();
    try {
      for (const id of ids) await h.waitForStatus(id, ['accepted']);
    } finally {
      await daemon.stop();
      await Promise.all([first.close(), second.close()]);
    }
    expect(first.messages.length + second.messages.length).toBe(30);
    // Both destinations had transactions at once, together never more than WORKER_CONCURRENCY.
    expect(first.peakConnections()).toBeGreaterThan(1);
    expect(second.peakConnections()).toBeGreaterThan(1);
    expect(transactions.peak()).toBeGreaterThan(2);
    expect(transactions.peak()).toBeLessThanOrEqual(Number(h.env.WORKER_CONCURRENCY));
  });

  it('still delivers queued and deferred messages after their jobs were wiped from Redis, through the reconciler', async () => {
    const past = new Date(Date.now() - 60_000);
    const queued = await Promise.all(Array.from({ length: 3 }, (_, i) => h.queueEmail(setup, { to: [`q${i}@rcpt.test`], createdAt: past })));
    const deferredId = await h.queueEmail(setup, { to: ['d@rcpt.test'], createdAt: past });
    await deferDeliveries(h.deps.db, [deferredId], past);
    for (const id of [...queued, deferredId]) await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: past });
    await flushTestKeys();
    expect(await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(queued[0]!, past))).toBeUndefined();

    const daemon = h.startDaemon();
    expect(await daemon.reconcile()).toBe(4);
    for (const id of [...queued, deferredId]) await h.waitForStatus(id, ['accepted']);
    expect(peer.messages.map((m) => m.to[0]).sort()).toEqual(['d@rcpt.test', 'q0@rcpt.test', 'q1@rcpt.test', 'q2@rcpt.test']);
    await daemon.stop();
  });
});

describe('stopping', () => {
  it('lets an in-flight attempt finish within the grace period', async () => {
    peer.behavior.data = { kind: 'delay', ms: 150 };
    const daemon = h.startDaemon();
    const id = await h.queueEmail(setup, { to: ['finish@rcpt.test'] });
    await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() });
    await h.waitForStatus(id, ['sending']);
    await daemon.stop();
    expect((await h.readEmail(id)).email.status).toBe('accepted');
    expect(peer.messages).toHaveLength(1);
  });

  it('releases the lease of an attempt still running when the grace period ends', async () => {
    const silent = await startTestSmtpServer({ host: '127.0.0.3', port: h.smtpPort, silent: true });
    h.dns.set('hang.test', [{ type: 'A', address: '127.0.0.3' }]);
    const daemon = h.startDaemon();
    const id = await h.queueEmail(setup, { to: ['ann@hang.test'] });
    await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() });
    await h.waitForStatus(id, ['sending']);
    await daemon.stop();
    // Released by the grace period's end, not ended by the peer's silence (no attempt recorded).
    const stored = await h.readEmail(id);
    expect(stored.email.status).toBe('queued');
    expect(stored.deliveries[0]).toMatchObject({ status: 'queued', leaseExpiresAt: null, attemptCount: 0 });
    expect(stored.attempts).toHaveLength(0);
    // Another worker picks it up at once.
    expect(await h.deps.deliveryQueue.queue.getJob(deliverMessageJobId(id, stored.deliveries[0]!.nextAttemptAt))).toBeDefined();
    await silent.close();
  });

  it('hands the messages of a job that had no slot yet to the next worker when the grace period ends', async () => {
    const silent = await startTestSmtpServer({ host: '127.0.0.4', port: h.smtpPort, silent: true });
    h.dns.set('hang-all.test', [{ type: 'A', address: '127.0.0.4' }]);
    const slots = Number(h.env.WORKER_CONCURRENCY);
    const dueAt = new Date();
    const ids = await Promise.all(Array.from({ length: slots + 2 }, (_, i) => h.queueEmail(setup, { to: [`w${i}@hang-all.test`] })));
    await h.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt })));
    try {
      const daemon = h.startDaemon();
      await h.waitForStatus(ids[0]!, ['sending']);
      await daemon.stop();
      const waiting = await h.deps.deliveryQueue.queue.getJobs(['waiting']);
      for (const id of ids) {
        const stored = await h.readEmail(id);
        expect(stored.deliveries[0]).toMatchObject({ status: 'queued', leaseExpiresAt: null, attemptCount: 0 });
        expect(stored.attempts).toHaveLength(0);
        // A job of its own, whether its attempt was cut short or it never got a slot.
        expect(waiting.filter((j) => j.data.emailIds.length === 1 && j.data.emailIds[0] === id)).toHaveLength(1);
      }
    } finally {
      await silent.close();
    }
  });
});
