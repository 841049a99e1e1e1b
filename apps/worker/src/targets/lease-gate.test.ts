import { Batcher, type HeldLease, type Lease } from '@mailer/db';
import type { WorkerDependencies } from '../container';
import { AttemptRecorder } from '../jobs/attempt-recorder';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from '../testing/worker-harness';
import { leaseGate } from './lease-gate';

let h: WorkerHarness;
let setup: SendingSetup;

beforeAll(async () => {
  h = await startWorkerHarness();
  setup = await h.createSendingSetup({ domain: 'gate.test' });
});
afterAll(() => h.close());

/** A message to two recipients, claimed as a job claims it. */
async function claimed(): Promise<{ emailId: string; lease: Lease }> {
  const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test', 'bob@rcpt.test'] });
  const claim = await h.deps.claims.submit(emailId);
  return { emailId, lease: claim!.lease };
}

/** The part of a held message the gate reads, with the settlements it was given. */
function held(emailId: string, lease: Lease, deps: WorkerDependencies = h.deps) {
  const log = h.deps.logger.child({ email_id: emailId });
  const tracked: Promise<void>[] = [];
  const message = {
    deps,
    lease,
    log,
    recorder: new AttemptRecorder(h.deps, lease, log),
    track: (work: Promise<void>) => {
      tracked.push(work);
      return work.catch(() => undefined);
    },
  };
  return { message, tracked };
}

const logged = (emailId: string, message: string) => h.logLines().filter((l) => l.email_id === emailId && l.message === message);

describe('leaseGate', () => {
  it('answers every delivery still leased, leaving the group to its transaction', async () => {
    const { emailId, lease } = await claimed();
    const { message, tracked } = held(emailId, lease);
    expect(await leaseGate(message, lease.deliveries)).toEqual(lease.deliveries);
    expect(tracked).toHaveLength(0);
  });

  it('drops a delivery another worker took over, without a record', async () => {
    const { emailId, lease } = await claimed();
    await h.deps.db`update deliveries set lease_token = ${'another-worker'} where email_id = ${emailId} and recipient = ${'bob@rcpt.test'}`;
    const { message, tracked } = held(emailId, lease);
    const sending = await leaseGate(message, lease.deliveries);
    expect(sending.map((d) => d.recipient)).toEqual(['ann@rcpt.test']);
    expect(tracked).toHaveLength(0);
    expect(logged(emailId, 'lease lost before the transaction')).toEqual([expect.objectContaining({ recipients: 1 })]);
    const stored = await h.readEmail(emailId);
    expect(stored.deliveries.map((d) => d.status)).toEqual(['sending', 'sending']);
    expect(stored.attempts).toHaveLength(0);
  });

  it('answers none when no delivery is leased any more, the group settled with nothing recorded', async () => {
    const { emailId, lease } = await claimed();
    await h.deps.db`update deliveries set lease_token = ${'another-worker'} where email_id = ${emailId}`;
    const { message, tracked } = held(emailId, lease);
    expect(await leaseGate(message, lease.deliveries)).toEqual([]);
    expect(tracked).toHaveLength(1);
    expect((await h.readEmail(emailId)).attempts).toHaveLength(0);
  });

  it("releases the group, unattempted, when the lease could not be checked", async () => {
    const { emailId, lease } = await claimed();
    const away = { ...h.deps, leaseChecks: new Batcher<HeldLease, string[]>(() => Promise.reject(new Error('database away'))) };
    const { message, tracked } = held(emailId, lease, away);
    expect(await leaseGate(message, lease.deliveries)).toEqual([]);
    expect(tracked).toHaveLength(1);
    expect(logged(emailId, 'lease not checked')).toEqual([expect.objectContaining({ error: 'database away' })]);
    const stored = await h.readEmail(emailId);
    expect(stored.deliveries.map((d) => [d.status, d.attemptCount])).toEqual([
      ['queued', 0],
      ['queued', 0],
    ]);
    expect(stored.attempts).toHaveLength(0);
  });
});
