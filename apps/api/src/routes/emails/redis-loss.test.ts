import { owedDeliveryJobs } from '@mailer/db';
import { deliverMessageJobId, MESSAGES_PER_JOB, reconcileOwedDeliveries, RECONCILE_GRACE_MS } from '@mailer/queue';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount } from '../../testing/sending-account';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** What the delivery daemon runs every RECONCILE_INTERVAL. */
const reconcile = (now: Date) =>
  reconcileOwedDeliveries(api.deps.deliveryQueue, owedDeliveryJobs(api.deps.db, { now, graceMs: RECONCILE_GRACE_MS, pageSize: 2 }), now);

const jobIds = async () => (await api.deps.deliveryQueue.queue.getJobs(['waiting', 'delayed', 'active', 'prioritized'])).map((j) => j.id).sort();

describe('the reconciler after Redis lost its jobs', () => {
  it('re-creates exactly the owed jobs in one pass and adds nothing on the next', async () => {
    const acme = await sendingAccount(api);
    const sent: { id: string; createdAt: Date }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await acme.send(acme.message({ to: [`r${i}@example.test`, `s${i}@other.test`] }));
      expect(res.status).toBe(202);
      sent.push({ id: res.body.id, createdAt: new Date(res.body.created_at) });
    }
    const enqueued = sent.map((s) => deliverMessageJobId(s.id, s.createdAt)).sort();
    expect(await jobIds()).toEqual(enqueued);

    const [done, failed, leased, later, owed] = sent;
    // done: delivered; failed: given up; leased: a worker died holding it; later: deferred, not yet due.
    await api.deps.db`update deliveries set status = 'accepted' where email_id = ${done!.id}`;
    await api.deps.db`update deliveries set status = 'failed' where email_id = ${failed!.id}`;
    const now = new Date(Date.now() + 60_000);
    const leaseExpiredAt = new Date(now.getTime() - 1000);
    await api.deps.db`update deliveries set status = 'sending', lease_expires_at = ${leaseExpiredAt} where email_id = ${leased!.id}`;
    await api.deps.db`update deliveries set status = 'deferred', next_attempt_at = ${new Date(now.getTime() + 3_600_000)} where email_id = ${later!.id}`;

    // FLUSHALL, as far as this queue is concerned.
    await api.deps.deliveryQueue.queue.obliterate({ force: true });
    expect(await jobIds()).toEqual([]);

    expect(await reconcile(now)).toBe(2);
    expect(await jobIds()).toEqual([deliverMessageJobId(leased!.id, leaseExpiredAt), deliverMessageJobId(owed!.id, owed!.createdAt)].sort());
    expect(await reconcile(now)).toBe(0);
    expect(await jobIds()).toHaveLength(2);

    // Once the deferred delivery falls due (plus the grace), it is owed too.
    const due = new Date(now.getTime() + 3_600_000 + RECONCILE_GRACE_MS);
    expect(await reconcile(due)).toBe(1);
    expect(await jobIds()).toContain(deliverMessageJobId(later!.id, new Date(now.getTime() + 3_600_000)));
  });

  it('leaves deliveries due within the grace period to the API’s own enqueue', async () => {
    const acme = await sendingAccount(api, { domain: 'fresh.test' });
    const res = await acme.send(acme.message());
    const createdAt = new Date(res.body.created_at);
    const job = deliverMessageJobId(res.body.id, createdAt);
    await api.deps.deliveryQueue.queue.obliterate({ force: true });
    await reconcile(new Date(createdAt.getTime() + RECONCILE_GRACE_MS - 1));
    expect(await jobIds()).not.toContain(job);
    await reconcile(new Date(createdAt.getTime() + RECONCILE_GRACE_MS));
    expect(await jobIds()).toContain(job);
  });

  it('gives each message of a job of several a job of its own once it is past the grace, and only once', async () => {
    const acme = await sendingAccount(api, { domain: 'together.test' });
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES_PER_JOB + 2; i++) ids.push((await acme.send(acme.message({ to: [`t${i}@example.test`] }))).body.id);
    await api.deps.deliveryQueue.queue.obliterate({ force: true });
    const dueAt = new Date();
    await api.deps.db`update deliveries set next_attempt_at = ${dueAt} where email_id = any(${ids}::text[])`;
    await api.deps.deliveryQueue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt })));
    const together = await api.deps.deliveryQueue.queue.getJobs(['waiting', 'delayed']);
    expect(together.map((j) => [j.id, j.data.emailIds])).toEqual(
      expect.arrayContaining([
        [deliverMessageJobId(ids[0]!, dueAt), ids.slice(0, MESSAGES_PER_JOB)],
        [deliverMessageJobId(ids[MESSAGES_PER_JOB]!, dueAt), ids.slice(MESSAGES_PER_JOB)],
      ]),
    );
    expect(together).toHaveLength(2);

    // Each message's own job id; the two jobs of several are named after their first messages.
    const own = ids.map((id) => deliverMessageJobId(id, dueAt));
    const ownJobs = async () => (await jobIds()).filter((id) => own.includes(id!));
    expect(await ownJobs()).toHaveLength(2);
    const late = new Date(dueAt.getTime() + RECONCILE_GRACE_MS);
    await reconcile(late);
    expect(await ownJobs()).toEqual([...own].sort());
    expect(await reconcile(late)).toBe(0);
  });
});
