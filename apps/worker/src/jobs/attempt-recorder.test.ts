import { Batcher, DatabaseStallError } from '@mailer/db';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';

/**
 * The message went out but its record failed because the database was away (the chaos run's
 * PostgreSQL crash, or a round trip left unanswered): the record is written again, so the
 * delivery ends `accepted` with one attempt instead of staying leased and being sent twice.
 */
let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'record.test' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterAll(async () => {
  await peer.close();
  await h.close();
});

describe('an attempt record the database did not take', () => {
  it('is written again: the delivery is accepted once, the message sent once', async () => {
    const original = h.deps.attempts;
    let failures = 0;
    h.deps.attempts = new Batcher(async (writes) => {
      if (failures === 0) {
        failures++;
        throw new DatabaseStallError(30_000);
      }
      return Promise.all(writes.map((w) => original.submit(w)));
    });
    try {
      const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
      await h.runJob(emailId);

      expect(failures).toBe(1);
      const deliveries = await h.deps.db`select status, attempt_count from deliveries where email_id = ${emailId}`;
      expect(deliveries.map((d) => [d.status, d.attempt_count])).toEqual([['accepted', 1]]);
      const attempts = await h.deps.db`select outcome from attempts where email_id = ${emailId}`;
      expect(attempts.map((a) => a.outcome)).toEqual(['accepted']);
      expect(peer.messages).toHaveLength(1);
    } finally {
      h.deps.attempts = original;
    }
  });
});
