import { withDatabase } from '@mailer/config';
import { migrateDatabase } from '@mailer/db';
import { SENTINEL_MASTER, startPrivatePostgres, startPrivateRedis, startTestSmtpServer, type PrivatePostgres, type PrivateRedis, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';

/**
 * The daemon on a PostgreSQL primary with a streaming standby (DATABASE_URL naming both)
 * and a Redis master with a replica and three Sentinels (REDIS_SENTINELS): each fails over,
 * the daemon's connections find the promoted servers and delivery goes on, with no restart
 * (docs/api-decisions.md, "Running several machines").
 */
let pg: PrivatePostgres;
let redis: PrivateRedis;
let h: WorkerHarness;
let setup: SendingSetup;
let sink: TestSmtpServer;

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPrivatePostgres({ standby: true }), startPrivateRedis({ sentinels: true, downAfterMs: 1_000 })]);
  const databaseUrl = withDatabase(pg.url, 'mailer');
  await migrateDatabase(databaseUrl);
  h = await startWorkerHarness({
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://ignored-with-sentinels:6379',
    REDIS_SENTINELS: redis.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
    REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
  });
  setup = await h.createSendingSetup({ domain: 'failover.test' });
  h.dns.set('rcpt.test', [{ type: 'MX', exchange: 'mx.rcpt.test', priority: 10 }]);
  h.dns.set('mx.rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
  sink = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
  await Promise.all([pg?.stop(), redis?.stop()]);
});

async function deliverOne(n: number): Promise<void> {
  const id = await h.queueEmail(setup, { to: [`u${n}@rcpt.test`] });
  // While a server is being promoted an enqueue may fail; the reconciler (RECONCILE_INTERVAL 1 s) enqueues owed mail then.
  await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() }).catch(() => undefined);
  await h.waitForStatus(id, ['accepted'], 120_000);
}

describe('failover under a running daemon', () => {
  it('delivers through a PostgreSQL failover and a Redis Sentinel failover', async () => {
    const daemon = h.startDaemon();
    try {
      await deliverOne(1);
      await pg.failover();
      await deliverOne(2);
      await redis.failover();
      await deliverOne(3);
      expect(sink.messages.map((m) => m.to[0]).sort()).toEqual(['u1@rcpt.test', 'u2@rcpt.test', 'u3@rcpt.test']);
      // The new primary is the former standby; its own standby streams from it again.
      const [state] = await h.deps.db`select pg_is_in_recovery() as standby, (select count(*)::int from pg_stat_replication) as standbys`;
      expect(state).toEqual({ standby: false, standbys: 1 });
    } finally {
      await daemon.stop();
    }
  }, 600_000);
});
