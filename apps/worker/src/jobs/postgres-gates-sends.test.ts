import { readFileSync } from 'node:fs';
import { Batcher, DatabaseStallError, writeAttempts, type MessageContent } from '@mailer/db';
import { startTestSmtpServer, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { AttemptJournal } from './attempt-journal';

/**
 * PostgreSQL is the source of truth for what goes out (docs/api-decisions.md, "Delivery"): a
 * delivery it no longer has leased to this daemon is not sent, and an acceptance it could not
 * record at once is kept in the daemon's journal on disk and written later, never sent again.
 * Every copy is counted at a real SMTP peer.
 */
let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'gate.test' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterAll(async () => {
  await peer.close();
  await h.close();
});

const copiesTo = (recipient: string) => peer.messages.filter((m) => m.to.includes(recipient)).length;
const deliveriesOf = (emailId: string) => h.deps.db`select status, attempt_count from deliveries where email_id = ${emailId}`;

describe('the lease checked in PostgreSQL right before the transaction', () => {
  it('sends nothing for a delivery taken over while its message was being built', async () => {
    const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    const original = h.deps.contents;
    // Another daemon takes the lease over (it lapsed, or a replayed job's claim won) while this one builds the message.
    h.deps.contents = new Batcher<string, MessageContent | undefined>(async (ids) => {
      await h.deps.db`update deliveries set lease_token = ${'another-daemon'} where email_id = any(${ids}::text[])`;
      return Promise.all(ids.map((id) => original.submit(id)));
    });
    try {
      await h.runJob(emailId);
    } finally {
      h.deps.contents = original;
    }
    expect(copiesTo('ann@rcpt.test')).toBe(0);
    // Still the other daemon's, as it left it: nothing recorded under a lease this daemon lost.
    expect((await deliveriesOf(emailId)).map((d) => [d.status, d.attempt_count])).toEqual([['sending', 0]]);
  });

  it('sends nothing for a job replayed after its delivery was accepted', async () => {
    const emailId = await h.queueEmail(setup, { to: ['bob@rcpt.test'] });
    await h.runJob(emailId);
    await h.runJob(emailId);
    expect(copiesTo('bob@rcpt.test')).toBe(1);
  });
});

describe('an acceptance PostgreSQL could not record', () => {
  it('is written again once the database answers: accepted once, sent once', async () => {
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
      const emailId = await h.queueEmail(setup, { to: ['dan@rcpt.test'] });
      await h.runJob(emailId);
      expect(failures).toBe(1);
      expect((await deliveriesOf(emailId)).map((d) => [d.status, d.attempt_count])).toEqual([['accepted', 1]]);
      const attempts = await h.deps.db`select outcome from attempts where email_id = ${emailId}`;
      expect(attempts.map((a) => a.outcome)).toEqual(['accepted']);
      expect(copiesTo('dan@rcpt.test')).toBe(1);
    } finally {
      h.deps.attempts = original;
    }
  });

  it('is kept in the journal file, written by the next start before any claim, and never sent again', async () => {
    const emailId = await h.queueEmail(setup, { to: ['cat@rcpt.test'] });
    const { attempts, journal } = h.deps;
    const file = h.config.worker.journalFile;
    // The database is away for this daemon's records: each write fails as unanswered.
    h.deps.attempts = new Batcher(async () => {
      throw new DatabaseStallError(5_000);
    });
    h.deps.journal = new AttemptJournal(file, async () => {
      throw new DatabaseStallError(5_000);
    }, h.deps.logger);
    const job = h.runJob(emailId).catch(() => undefined);
    try {
      for (let i = 0; i < 200 && h.deps.journal.pending === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(h.deps.journal.pending).toBe(1);
      // On disk before anything else: the daemon may die now.
      expect(readFileSync(file, 'utf8')).toContain(emailId);
      expect(copiesTo('cat@rcpt.test')).toBe(1);
      expect((await deliveriesOf(emailId)).map((d) => d.status)).toEqual(['sending']);
    } finally {
      // The daemon dies with the record in its journal; its lease lapses.
      h.deps.journal.stop();
      await job;
      h.deps.attempts = attempts;
    }
    await h.deps.db`update deliveries set lease_expires_at = now() - interval '1 second' where email_id = ${emailId}`;

    // Started again on the same file, the database back: the journal is written before the claim of the job that comes back.
    h.deps.journal = new AttemptJournal(file, (writes) => writeAttempts(h.deps.db, writes), h.deps.logger);
    h.deps.journal.load();
    try {
      await h.runJob(emailId);
      expect(copiesTo('cat@rcpt.test')).toBe(1);
      expect((await deliveriesOf(emailId)).map((d) => [d.status, d.attempt_count])).toEqual([['accepted', 1]]);
      expect(h.deps.journal.pending).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('');
    } finally {
      h.deps.journal = journal;
    }
  });
});
