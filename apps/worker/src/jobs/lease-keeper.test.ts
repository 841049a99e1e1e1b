import { leaseTiming } from '@mailer/domain';
import { claimMessages, openDatabase, type Lease } from '@mailer/db';
import { freePort } from '@mailer/testing';
import { createWorkerMetrics } from '../metrics';
import { startWorkerHarness, type WorkerHarness } from '../testing/worker-harness';
import { LeaseKeeper } from './lease-keeper';

const LEASE_MS = 3_000;

let h: WorkerHarness;

beforeAll(async () => {
  h = await startWorkerHarness({ DELIVERY_LEASE: '3s' });
});
afterAll(() => h.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keeperOn = (db = h.deps.db) => new LeaseKeeper({ db, leaseMs: LEASE_MS, now: () => new Date(), logger: h.deps.logger, renewals: createWorkerMetrics().leaseRenewals });

async function claimOne(domain: string): Promise<Lease> {
  const setup = await h.createSendingSetup({ domain });
  const emailId = await h.queueEmail(setup, { to: ['ann@rcpt.test', 'bob@rcpt.test'] });
  return (await claimMessages(h.deps.db, [emailId], new Date(), LEASE_MS)).get(emailId)!.lease;
}

const leaseColumns = async (emailId: string) =>
  (await h.deps.db`select lease_expires_at, lease_token from deliveries where email_id = ${emailId} order by id`).map((r) => ({
    expiresAt: r.lease_expires_at as Date,
    token: r.lease_token as string,
  }));

describe('LeaseKeeper', () => {
  it('renews the leases it keeps past their first expiry, and stops when they are let go', async () => {
    const lease = await claimOne('renewed.test');
    const keeper = keeperOn();
    const kept = keeper.keep(lease);
    // Its own timer renews it: the rows' expiry moves past the claim's, under the same token.
    let renewed = await leaseColumns(lease.emailId);
    for (const deadline = Date.now() + 20_000; renewed.some((row) => row.expiresAt <= lease.expiresAt) && Date.now() < deadline; ) {
      await sleep(50);
      renewed = await leaseColumns(lease.emailId);
    }
    for (const row of renewed) {
      expect(row.token).toBe(lease.token);
      expect(row.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime());
    }
    // Renewed in time, the attempt goes on.
    expect(kept.signal.aborted).toBe(false);
    kept.release();
    await sleep(leaseTiming(LEASE_MS).renewEveryMs * 2);
    expect(await leaseColumns(lease.emailId)).toEqual(renewed);
  });

  it('stops every lease it keeps at shutdown, whether its signal was asked for before or after', async () => {
    const shutdown = new AbortController();
    const keeper = new LeaseKeeper({ db: h.deps.db, leaseMs: LEASE_MS, now: () => new Date(), logger: h.deps.logger, renewals: createWorkerMetrics().leaseRenewals, shutdown: shutdown.signal });
    const early = keeper.keep(await claimOne('shutdown-early.test'));
    const late = keeper.keep(await claimOne('shutdown-late.test'));
    const signal = early.signal;
    expect([signal.aborted, early.stopped, late.stopped]).toEqual([false, undefined, undefined]);
    shutdown.abort(new Error('shutdown'));
    expect(signal.aborted).toBe(true);
    expect(late.stopped?.message).toBe('shutdown');
    expect((late.signal.reason as Error).message).toBe('shutdown');
    const after = keeper.keep(await claimOne('shutdown-after.test'));
    expect(after.signal.aborted).toBe(true);
    for (const kept of [early, late, after]) kept.release();
  });

  it('never extends a lease another worker took over', async () => {
    const lease = await claimOne('taken.test');
    const keeper = keeperOn();
    const kept = keeper.keep(lease);
    const theirs = new Date(Date.now() + 120_000);
    await h.deps.db`update deliveries set lease_expires_at = ${theirs}, lease_token = ${'another-worker'} where email_id = ${lease.emailId}`;
    await keeper.renew();
    expect(await leaseColumns(lease.emailId)).toEqual([
      { expiresAt: theirs, token: 'another-worker' },
      { expiresAt: theirs, token: 'another-worker' },
    ]);
    kept.release();
  });

  it('stops the attempt before its lease runs out when the database cannot be reached to renew it', async () => {
    const lease = await claimOne('unrenewable.test');
    // A real client to a port nothing listens on: every renewal fails.
    const away = openDatabase(`postgres://postgres@127.0.0.1:${await freePort()}/mailer`, 1);
    const keeper = keeperOn(away.db);
    const kept = keeper.keep(lease);
    const stoppedAt = await new Promise<number>((resolve) => kept.signal.addEventListener('abort', () => resolve(Date.now())));
    kept.release();
    await away.close();
    // After two renewal periods, and before the lease runs out (the stop margin absorbs a late timer).
    expect(stoppedAt).toBeGreaterThan(lease.expiresAt.getTime() - LEASE_MS / 3);
    expect(stoppedAt).toBeLessThan(lease.expiresAt.getTime());
    expect((kept.signal.reason as Error).message).toBe('lease not renewed in time');
  });
});
