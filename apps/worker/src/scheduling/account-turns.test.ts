import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import type { Daemon } from '../daemon';
import { startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';

/**
 * When the daemon itself is the bottleneck (its WORKER_ACTIVE_LIMIT full), claims take
 * accounts in turn (docs/api-decisions.md, "Scheduling", Fairness between accounts): an
 * account's messages queued behind another account's backlog are claimed at the next turns,
 * not after the backlog. The order of the `sending` events is the order of the claims.
 */
let h: WorkerHarness;
let sink: TestSmtpServer;
let daemon: Daemon | undefined;

beforeAll(async () => {
  h = await startWorkerHarness({ WORKER_ACTIVE_LIMIT: '10' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
  sink = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 20 } });
});
afterAll(async () => {
  await daemon?.stop();
  await sink.close();
  await h.close();
});

it("claims a second account's messages at the next turns, not after the first account's backlog", async () => {
  const backlog = await h.createSendingSetup({ domain: 'backlog.test' });
  const other = await h.createSendingSetup({ domain: 'other.test' });
  const a: string[] = [];
  for (let i = 0; i < 120; i++) a.push(await h.queueEmail(backlog, { to: [`a${i}@rcpt.test`] }));
  const b: string[] = [];
  for (let i = 0; i < 5; i++) b.push(await h.queueEmail(other, { to: [`b${i}@rcpt.test`] }));
  const now = new Date();
  // The backlog's jobs first, in Redis's order; the other account's after them.
  await h.deps.deliveryQueue.enqueueTogether(a.map((emailId) => ({ emailId, dueAt: now, accountId: backlog.accountId })));
  await h.deps.deliveryQueue.enqueueTogether(b.map((emailId) => ({ emailId, dueAt: now, accountId: other.accountId })));
  daemon = h.startDaemon();

  const ids = [...a, ...b];
  // Until every delivery ended its attempt; any not accepted shows with its cause.
  for (;;) {
    const ended = await h.deps.db`select status, cause from deliveries where email_id = any(${ids}::text[]) and status not in ('queued', 'sending')`;
    if (ended.length === ids.length) {
      expect(ended.filter((d) => d.status !== 'accepted')).toEqual([]);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const claims = await h.deps.db`select email_id from events where type = 'sending' and email_id = any(${ids}::text[]) order by id`;
  const order = claims.map((r) => r.email_id as string);
  expect(order).toHaveLength(ids.length);
  const turns = b.map((id) => order.indexOf(id));
  // Claimed among the first: the daemon held 10 of the backlog when the other account's jobs came.
  expect(Math.max(...turns)).toBeLessThan(30);
}, 60_000);
