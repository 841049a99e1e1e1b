import { inTransaction, lockAccountIntake, usageFigures, usageFiguresFrom } from '@mailer/db';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/**
 * Contract 22: a burst of intake slows delivery, never stops it. An intake batch holds its
 * account's intake lock from its plan check to its commit, back to back under a burst; a
 * delivery's record, which moves the same account's counters, never waits on what intake holds
 * for a whole batch (docs/api-decisions.md, "Data layer", Lock order).
 */
let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'burst.test' });
  h.dns.set('sink.test', [{ type: 'MX', exchange: 'mx.sink.test', priority: 10 }]);
  h.dns.set('mx.sink.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterAll(async () => {
  await peer.close();
  await h.close();
});

it('delivers and records a message while an intake batch of its account holds its plan check open', async () => {
  const emailId = await h.queueEmail(setup, { to: ['ann@sink.test'] });

  const during = await inTransaction(h.deps.db, async (tx) => {
    // What an intake batch holds between its plan check and its commit (runIntakeBatch's second round trip).
    const { usage } = await tx.send({ lock: lockAccountIntake(tx, setup.accountId), usage: usageFigures(tx, setup.accountId, new Date(), []) });
    expect(usageFiguresFrom(usage, []).active).toBe(1);
    await h.runJob(emailId);
    return h.readEmail(emailId);
  });

  expect(during.email.status).toBe('accepted');
  expect(peer.messages.map((m) => m.to)).toEqual([['ann@sink.test']]);
  const [usage] = await h.deps.db`select active_deliveries from account_usage where account_id = ${setup.accountId}`;
  expect(usage!.active_deliveries).toBe(0);
  const [sender] = await h.deps.db`select accepted_count from senders where id = ${setup.sender.id}`;
  expect(sender!.accepted_count).toBe(1);
});
