import { createServer, type Server } from 'node:net';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import type { Daemon } from '../daemon';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';

/**
 * A bad destination of each kind holds a backlog while mail for a healthy one is posted
 * after it: the healthy mail arrives while the backlog is still there (docs/api-decisions.md,
 * "Scheduling"). Bounds are generous; the scheduling benchmark measures speed.
 */
let h: WorkerHarness;
let setup: SendingSetup;
let healthy: TestSmtpServer;
let daemon: Daemon | undefined;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  h = await startWorkerHarness({ SMTP_CONNECT_TIMEOUT: '2s', DESTINATION_SUSPENSION: '1m', RETRY_SCHEDULE: '10m' });
  setup = await h.createSendingSetup({ domain: 'hol.test' });
  h.dns.set('healthy.test', [{ type: 'MX', exchange: 'mx.healthy.test', priority: 10 }]);
  h.dns.set('mx.healthy.test', [{ type: 'A', address: '127.0.0.2' }]);
});
beforeEach(async () => {
  healthy = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort, tls: 'none' });
});
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await healthy.close();
  for (const close of closers.splice(0)) await close();
});
afterAll(() => h.close());

/** `domain` routed to one MX at `address`. */
function route(domain: string, address: string) {
  h.dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
  h.dns.set(`mx.${domain}`, [{ type: 'A', address }]);
}

/** Queues `count` messages to `domain` and enqueues them together (10 to a job), in this order. */
async function post(domain: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await h.queueEmail(setup, { to: [`u${i}@${domain}`] }));
  const dueAt = new Date();
  await h.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt })));
  return ids;
}

async function statuses(domain: string): Promise<Record<string, number>> {
  const rows = await h.deps.db`select status, count(*)::int as n from deliveries where recipient_domain = ${domain} group by status`;
  return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
}

/** Posts the backlog for `badDomain`, then 10 healthy messages, and expects those delivered while the backlog is not. */
async function expectHealthyMailThrough(badDomain: string, backlog: number) {
  daemon = h.startDaemon();
  await post(badDomain, backlog);
  const healthyIds = await post('healthy.test', 10);
  for (const id of healthyIds) await h.waitForStatus(id, ['accepted'], 20_000);
  expect(healthy.messages).toHaveLength(10);
  expect((await statuses(badDomain)).accepted ?? 0).toBeLessThan(backlog);
}

describe('a bad destination never delays mail bound elsewhere', () => {
  it('slow (2 s a message) with a backlog of 150', async () => {
    const slow = await startTestSmtpServer({ host: '127.0.0.3', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 2_000 } });
    closers.push(() => slow.close());
    route('slow.test', '127.0.0.3');
    await expectHealthyMailThrough('slow.test', 150);
    // The slow destination had transactions in parallel, never all of the daemon's.
    expect(slow.peakConnections()).toBeGreaterThan(1);
    expect(slow.peakConnections()).toBeLessThan(Number(h.env.WORKER_CONCURRENCY));
  });

  it('silent (accepts TCP, never greets) with a backlog of 80', async () => {
    const silent = await startTestSmtpServer({ host: '127.0.0.4', port: h.smtpPort, silent: true });
    closers.push(() => silent.close());
    route('silent.test', '127.0.0.4');
    await expectHealthyMailThrough('silent.test', 80);
  });

  it('refusing connections with a backlog of 80, and then suspended: its mail deferred without a connection each', async () => {
    const refused: number[] = [];
    const refusing: Server = await new Promise((resolve) => {
      const server = createServer((socket) => {
        refused.push(Date.now());
        socket.destroy();
      });
      server.listen(h.smtpPort, '127.0.0.5', () => resolve(server));
    });
    closers.push(() => new Promise((resolve) => refusing.close(resolve)));
    route('refusing.test', '127.0.0.5');
    await expectHealthyMailThrough('refusing.test', 80);
    // DESTINATION_SUSPEND_AFTER (5) failures in a row suspend it: the rest is deferred at once.
    const deadline = Date.now() + 10_000;
    while (((await statuses('refusing.test')).deferred ?? 0) < 80 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await statuses('refusing.test')).toEqual({ deferred: 80 });
    const causes = await h.deps.db`
      select a.cause->>'code' as code, count(*)::int as n from attempts a join deliveries d on d.email_id = a.email_id
       where d.recipient_domain = ${'refusing.test'} group by 1`;
    expect(causes.map((r) => [r.code, r.n])).toEqual([['connection_failed', 80]]);
    // Connections: the failures before the suspension, and those already under way then (at most the initial concurrency).
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeLessThan(20);
  });

  it('throttling (421 4.7.0 to MAIL FROM) with a backlog of 80, its concurrency lowered', async () => {
    const throttling = await startTestSmtpServer({ host: '127.0.0.6', port: h.smtpPort, tls: 'none', mailFrom: '421 4.7.0 Too many messages, slow down' });
    closers.push(() => throttling.close());
    route('throttling.test', '127.0.0.6');
    await expectHealthyMailThrough('throttling.test', 80);
    const snapshot = h.deps.scheduler.snapshot().find((d) => d.destination === 'mx.throttling.test');
    expect(snapshot?.concurrency).toBe(1);
  });
});

describe('fair sharing between accounts', () => {
  it("serves a second account's mail to the same destination between the first account's backlog", async () => {
    const shared = await startTestSmtpServer({ host: '127.0.0.7', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 100 } });
    closers.push(() => shared.close());
    route('shared.test', '127.0.0.7');
    const other = await h.createSendingSetup({ domain: 'other-account.test' });
    daemon = h.startDaemon();
    await post('shared.test', 200);
    const late = [];
    for (let i = 0; i < 5; i++) late.push(await h.queueEmail(other, { to: [`late${i}@shared.test`] }));
    await h.deps.deliveryQueue.enqueueTogether(late.map((emailId) => ({ emailId, dueAt: new Date() })));
    // However much of the backlog went out while they were being posted, what was left of it comes after them.
    const deliveredBefore = shared.messages.length;
    for (const id of late) await h.waitForStatus(id, ['accepted'], 30_000);
    // Round robin between the two accounts: the late account's five came within the next hundred of the backlog.
    const lastLate = Math.max(...late.map((_, i) => shared.messages.findIndex((m) => m.to[0] === `late${i}@shared.test`)));
    expect(lastLate).toBeGreaterThanOrEqual(deliveredBefore);
    expect(lastLate - deliveredBefore).toBeLessThan(100);
  });
});
