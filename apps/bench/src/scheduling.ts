import { randomBytes } from 'node:crypto';
import { loadConfig } from '@mailer/config';
import { createAccount, openDatabase, type Database } from '@mailer/db';
import { createDeliveryQueue, openRedis } from '@mailer/queue';
import { insertQueuedEmail, insertReadyDomain, insertSender, startTestDnsServer, startTestSmtpServer } from '@mailer/testing';
import { clearRedisPrefix, freshDatabase, startWorker } from './bench-environment';
import { writeBenchmarkSection } from './benchmarks-file';
import { percentile } from './percentile';

/**
 * Scheduling (docs/api-decisions.md, "Scheduling"), with the built worker:
 * - "bad destination": N messages queued for a destination that takes 2 s a message
 *   (BAD=slow) or accepts TCP and never greets (BAD=silent), then PROBES messages to a
 *   healthy destination, one every PROBE_EVERY_MS: the time from each one's due time to its
 *   first attempt (p50, p99; target p99 <= 1 s);
 * - "backlogged account": N messages of one account queued for a destination that takes 200 ms a message, then
 *   PROBES messages of another account to the same destination: the time from due to
 *   delivered (p50, p99; target <= 2 s);
 * - "daemon-bound" (first, on a fresh daemon): BOUND messages of one account queued for a
 *   fast destination and then 5 of another account before the worker starts; the time from
 *   its start until the other account's 5 were delivered (target <= 2 s), and how many of the
 *   backlog went before them.
 * Messages are written as intake writes them and enqueued 10 to a job; the section goes to BENCHMARKS.md.
 */
const N = Number(process.env.N ?? 10_000);
const PROBES = Number(process.env.PROBES ?? 100);
const PROBE_EVERY_MS = Number(process.env.PROBE_EVERY_MS ?? 100);
const BAD = (process.env.BAD ?? 'slow') as 'slow' | 'silent';
const SMTP_PORT = 2700;
const DATABASE = 'mailer_bench_scheduling';
const REDIS_PREFIX = 'mailer_bench_scheduling';
const INSERT_BATCH = 50;
const BOUND = Number(process.env.BOUND ?? 3_000);
const LATE = 5;

interface Sending {
  accountId: string;
  senderId: string;
  domainId: string;
  from: string;
}

async function sendingAccount(db: Database, key: Buffer, name: string): Promise<Sending> {
  const { account } = await createAccount(db, name);
  const domain = await insertReadyDomain(db, key, account.id, `${name}.bench.test`);
  const sender = await insertSender(db, account.id, domain.id, `hello@${name}.bench.test`);
  return { accountId: account.id, senderId: sender.id, domainId: domain.id, from: sender.email };
}

type Enqueue = (ids: string[], accountId: string) => Promise<void>;

/** `count` messages to `domain`, written and then enqueued due now; resolves once enqueued, with their ids. */
async function backlog(db: Database, enqueue: Enqueue, from: Sending, domain: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += INSERT_BATCH) {
    const batch = Array.from({ length: Math.min(INSERT_BATCH, count - i) }, (_, k) => insertQueuedEmail(db, { ...from, to: [`u${i + k}@${domain}`] }));
    const written = (await Promise.all(batch)).map((e) => e.id);
    await enqueue(written, from.accountId);
    ids.push(...written);
  }
  return ids;
}

/** Posts PROBES messages one every PROBE_EVERY_MS, then waits for `timeOf` of each; answers the delays in seconds. */
async function probe(db: Database, enqueue: Enqueue, from: Sending, domain: string, column: 'started_at' | 'ended_at'): Promise<number[]> {
  const due = new Map<string, number>();
  for (let i = 0; i < PROBES; i++) {
    const email = await insertQueuedEmail(db, { ...from, to: [`probe${i}@${domain}`] });
    due.set(email.id, Date.now());
    await enqueue([email.id], from.accountId);
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
  const ids = [...due.keys()];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const rows = await db`
      select email_id, min(${db(column)}) as at from attempts
       where email_id = any(${ids}::text[]) and (${column === 'started_at'} or outcome = 'accepted') group by email_id`;
    if (rows.length === PROBES) return rows.map((r) => ((r.at as Date).getTime() - due.get(r.email_id as string)!) / 1000);
    if (Date.now() > deadline) throw new Error(`only ${rows.length} of ${PROBES} probes were attempted within 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** When every one of `ids` was accepted (its last accepted attempt), or undefined while any is not. */
async function acceptedAt(db: Database, ids: string[]): Promise<number | undefined> {
  const rows = await db`select email_id, max(ended_at) as at from attempts where email_id = any(${ids}::text[]) and outcome = 'accepted' group by email_id`;
  return rows.length === ids.length ? Math.max(...rows.map((r) => (r.at as Date).getTime())) : undefined;
}

const seconds = (values: number[]) => `p50 ${percentile(values, 50).toFixed(3)} s, p99 ${percentile(values, 99).toFixed(3)} s, max ${Math.max(...values).toFixed(3)} s`;

async function main() {
  const config = loadConfig();
  console.log(`scheduling: N=${N}, PROBES=${PROBES}, BAD=${BAD}; preparing the database, DNS, peers and the worker (production build)…`);
  const databaseUrl = await freshDatabase(config, DATABASE);
  await clearRedisPrefix(config, REDIS_PREFIX);
  const key = randomBytes(32);
  const dns = await startTestDnsServer();
  const route = (domain: string, address: string) => {
    dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
    dns.set(`mx.${domain}`, [{ type: 'A', address }]);
  };
  route('bad.bench.test', '127.0.0.2');
  route('healthy.bench.test', '127.0.0.3');
  route('shared.bench.test', '127.0.0.4');
  route('fast.bench.test', '127.0.0.5');
  const bad = await startTestSmtpServer({ host: '127.0.0.2', port: SMTP_PORT, tls: 'none', ...(BAD === 'silent' ? { silent: true } : { data: { kind: 'delay', ms: 2_000 } }) });
  const healthy = await startTestSmtpServer({ host: '127.0.0.3', port: SMTP_PORT, tls: 'none' });
  // 200 ms a message: at most 100 messages a second at the destination's concurrency of 20, so the backlog stays.
  const shared = await startTestSmtpServer({ host: '127.0.0.4', port: SMTP_PORT, tls: 'none', data: { kind: 'delay', ms: 200 } });
  const fast = await startTestSmtpServer({ host: '127.0.0.5', port: SMTP_PORT, tls: 'none' });
  const database = openDatabase(databaseUrl, 4);
  const redis = openRedis(config.redis, 'producer');
  const queue = createDeliveryQueue(redis, REDIS_PREFIX);
  const enqueue: Enqueue = (ids, accountId) => {
    const dueAt = new Date();
    return queue.enqueueTogether(ids.map((emailId) => ({ emailId, dueAt, accountId })));
  };
  const start = () => startWorker(config, databaseUrl, key, { redisPrefix: REDIS_PREFIX, dnsServer: dns.address, smtpPort: SMTP_PORT });
  const stop = async (child: ReturnType<typeof startWorker>) => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  let worker: ReturnType<typeof startWorker> | undefined;
  process.once('SIGINT', () => {
    worker?.kill('SIGKILL');
    process.exit(130);
  });
  try {
    const db = database.db;
    console.log(`daemon-bound: before the worker starts, ${BOUND} messages of one account and then ${LATE} of another queued for a fast MX…`);
    const third = await sendingAccount(db, key, 'bulk');
    const fourth = await sendingAccount(db, key, 'late');
    await backlog(db, enqueue, third, 'fast.bench.test', BOUND);
    const late = await backlog(db, enqueue, fourth, 'fast.bench.test', LATE);
    const startedAt = Date.now();
    worker = start();
    let lateAt: number | undefined;
    while ((lateAt = await acceptedAt(db, late)) === undefined) {
      if (Date.now() - startedAt > 120_000) throw new Error('the late account was not delivered within 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const boundDelay = (lateAt - startedAt) / 1000;
    const [before] = await db`select count(*)::int as n from attempts a join emails e on e.id = a.email_id where e.account_id = ${third.accountId} and a.ended_at < ${new Date(lateAt)}`;
    console.log(`  the late account, from the worker's start to its last message delivered: ${boundDelay.toFixed(3)} s (${before!.n} of the backlog before it)`);

    const first = await sendingAccount(db, key, 'backlogged');
    const second = await sendingAccount(db, key, 'other');

    console.log(`bad destination: queueing ${N} messages for a ${BAD} MX…`);
    await backlog(db, enqueue, first, 'bad.bench.test', N);
    const badDelays = await probe(db, enqueue, second, 'healthy.bench.test', 'started_at');
    console.log(`  healthy destination, due to first attempt: ${seconds(badDelays)}`);

    console.log(`backlogged account: queueing ${N} messages of one account for a healthy MX…`);
    await backlog(db, enqueue, first, 'shared.bench.test', N);
    const fairDelays = await probe(db, enqueue, second, 'shared.bench.test', 'ended_at');
    console.log(`  the other account, due to delivered: ${seconds(fairDelays)} (${shared.messages.length} delivered there by then)`);

    await writeBenchmarkSection(
      'Scheduling',
      `Measured by \`npm run bench:scheduling\` (apps/bench/src/scheduling.ts) on ${new Date().toISOString().slice(0, 10)} with the built worker
(default settings), N=${N}, ${PROBES} probe messages one every ${PROBE_EVERY_MS} ms, loopback SMTP peers.

| Scenario | Measured | p50 | p99 | Target |
|---|---|---|---|---|
| ${N} messages queued for a ${BAD === 'slow' ? 'slow (2 s a message)' : 'silent (accepts TCP, never greets)'} destination | a healthy destination's messages, due to first attempt | ${percentile(badDelays, 50).toFixed(3)} s | ${percentile(badDelays, 99).toFixed(3)} s | p99 <= 1 s |
| ${N} messages of one account queued for a destination taking 200 ms a message | another account's messages to it, due to delivered | ${percentile(fairDelays, 50).toFixed(3)} s | ${percentile(fairDelays, 99).toFixed(3)} s | <= 2 s |
| ${BOUND} messages of one account queued for a fast destination before the daemon starts, then ${LATE} of another | the other account's last message, from the daemon's start to delivered (${before!.n} of the backlog went before) | | ${boundDelay.toFixed(3)} s | <= 2 s |

The daemon takes its jobs' messages into a claim queue where accounts take turns, holds the deliveries per destination in
memory (up to \`WORKER_ACTIVE_LIMIT\`) and serves destinations round robin, each account's queue round robin within a
destination (docs/api-decisions.md, "Scheduling"). N is set by the \`N\` environment variable, the probes by \`PROBES\`
and \`PROBE_EVERY_MS\`, the bad destination by \`BAD\` (\`slow\` or \`silent\`), the daemon-bound backlog by \`BOUND\`.`,
    );
    console.log('BENCHMARKS.md: section "Scheduling" written');
    if (percentile(badDelays, 99) > 1 || percentile(fairDelays, 99) > 2 || boundDelay > 2) process.exitCode = 1;
  } finally {
    if (worker) await stop(worker);
    await queue.close();
    redis.disconnect();
    await database.close();
    await Promise.all([bad.close(), healthy.close(), shared.close(), fast.close()]);
    await dns.close();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
