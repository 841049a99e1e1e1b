import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import type { Daemon } from '../daemon';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';

/**
 * WORKER_ACTIVE_LIMIT bounds the deliveries a daemon holds (docs/api-decisions.md,
 * "Scheduling"), however many messages its jobs bring at once.
 */
let h: WorkerHarness;
let setup: SendingSetup;
let slow: TestSmtpServer;
let daemon: Daemon | undefined;

beforeAll(async () => {
  h = await startWorkerHarness({ WORKER_ACTIVE_LIMIT: '5' });
  setup = await h.createSendingSetup({ domain: 'limited.test' });
  h.dns.set('slow.test', [{ type: 'MX', exchange: 'mx.slow.test', priority: 10 }]);
  h.dns.set('mx.slow.test', [{ type: 'A', address: '127.0.0.2' }]);
  slow = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort, tls: 'none', data: { kind: 'delay', ms: 500 } });
});
afterAll(async () => {
  await daemon?.stop();
  await slow.close();
  await h.close();
});

it('holds at most WORKER_ACTIVE_LIMIT deliveries while jobs of 10 messages each come in', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) ids.push(await h.queueEmail(setup, { to: [`u${i}@slow.test`] }));
  daemon = h.startDaemon();
  await h.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt: new Date() })));
  // Watched at every turn of the event loop until the last message arrived.
  let most = 0;
  for (const deadline = Date.now() + 60_000; slow.messages.length < ids.length && Date.now() < deadline; ) {
    most = Math.max(most, h.deps.scheduler.held);
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(slow.messages).toHaveLength(ids.length);
  // The limit was reached (the slow destination keeps its deliveries), and never passed.
  expect(most).toBe(5);
});
