import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '@mailer/config';
import { openDatabase, type Database } from '@mailer/db';
import { endProcess, startTestDnsServer } from '@mailer/testing';
import { benchMessage, provisionBenchSender, THIS_BUILD } from './bench-provisioning';
import { clearRedisPrefix, freshDatabase, startApi, startWorker, type ApiProcess } from './bench-environment';
import { writeBenchmarkSection } from './benchmarks-file';
import { fmt } from './format';
import { loadPostEmails } from './post-emails-load';
import { deliveryTarget, measureDelivery, SINK_PORT, STALL_MS, type DeliveryTarget } from './measure-delivery';
import { sampleLockWaits } from './lock-waits';
import { cpuBetween, readCpu } from './process-cpu';
import { requireSmtpSink, startSmtpSink, type SmtpSink } from './smtp-sink';

/**
 * `npm run bench:burst`: delivery while intake runs at the machine's limit (contract 22: a
 * sustained burst of POST /v1/emails slows delivery in proportion to the CPU it takes and never
 * stops it). The built API and daemon (default settings) on a fresh database, one account, one
 * recipient, ~2 KB: after a warm-up, autocannon drives POST /v1/emails on CONNECTIONS
 * connections for SECONDS, as fast as the API answers; the sink's count is read every second
 * meanwhile. Then the backlog drains with no intake. One burst per layout of API_LAYOUTS (one
 * API process, then two, the connections split between them; one daemon throughout).
 * Reported per layout: the intake rate, deliveries per second during the burst (over the whole
 * burst and in its slowest window), deliveries per second once intake stopped, their ratio, and
 * the machine's CPU the APIs and PostgreSQL took during the burst (the share delivery could
 * not have), deliveries per second of the daemon's CPU during and after the burst, and how often
 * the daemon's busy database sessions waited on a lock during the burst. Writes BENCHMARKS.md ("Delivery during intake").
 */
const SECONDS = Number(process.env.DURATION ?? 20);
/** As many as the intake benchmark's: the burst is intake at its limit. */
const CONNECTIONS = 50;
const WARMUP = Number(process.env.WARMUP ?? 3_000);
/** API processes of each burst, in order. */
const API_LAYOUTS = (process.env.API_LAYOUTS ?? '1,2').split(',').map(Number);
/** The burst's deliveries are also counted per window of this many seconds: the slowest one shows whether delivery stopped. */
const WINDOW_S = 5;
const DATABASE = 'mailer_bench_burst';
const REDIS_PREFIX = 'mailer_bench_burst';
const DOMAIN = 'burst.sink.test';

/** The intake benchmark's message: one recipient, about 2 KB of text and HTML. */
function messageBody(): string {
  const paragraph = 'Thank you for your order. Your receipt is attached below; reply to this message if anything looks wrong. ';
  return JSON.stringify({
    from: 'Bench Shop <orders@bench.test>',
    to: [`customer@${DOMAIN}`],
    subject: 'Your order #12345 has shipped',
    content: { plain: paragraph.repeat(8), html: `<html><body><p>${paragraph.repeat(8)}</p></body></html>` },
  });
}

interface BurstFigures {
  apis: number;
  accepted: number;
  other: number;
  errors: number;
  delivered: number;
  intake: number;
  during: number;
  slowestWindow: number;
  after: number;
  intakeCpuShare: number;
  workerCpuShare: number;
  /** Deliveries per second of the daemon's CPU, during the burst and once intake stopped: equal when only CPU slowed delivery. */
  perWorkerCpuSecond: { during: number; after: number };
  /** The share of the daemon's busy database-session samples that waited on a lock during the burst. */
  daemonLockWaits: number;
}

/** One burst through `apis` (the connections split between them), then the drain with no intake. */
async function burst(target: DeliveryTarget, apis: readonly ApiProcess[], sink: SmtpSink, db: Database): Promise<BurstFigures> {
  console.log(`burst: POST /v1/emails through ${apis.length} API process(es) on ${CONNECTIONS} connections for ${SECONDS} s…`);
  const body = messageBody();
  const before = sink.count();
  const cpuBefore = readCpu(target.roles);
  const counts: number[] = [];
  const sampler = setInterval(() => counts.push(sink.count() - before), 1_000);
  const lockWaits = sampleLockWaits(db, DATABASE, target.worker.pid!);
  const started = Date.now();
  const results = await Promise.all(
    apis.map((api, i) =>
      loadPostEmails({
        url: api.baseUrl,
        sendingKey: target.sendingKey,
        body,
        connections: Math.floor(CONNECTIONS / apis.length) + (i < CONNECTIONS % apis.length ? 1 : 0),
        seconds: SECONDS,
      }),
    ),
  );
  clearInterval(sampler);
  const waits = await lockWaits.stop();
  const burstSeconds = (Date.now() - started) / 1000;
  const cpu = cpuBetween(cpuBefore, readCpu(target.roles));
  const duringBurst = sink.count() - before;
  const sum = (pick: (r: autocannon.Result) => number) => results.reduce((total, r) => total + pick(r), 0);
  const accepted = sum((r) => r['2xx']);

  // The backlog drains with no intake: the daemon's rate alone.
  const drainStarted = Date.now();
  const cpuDrainBefore = readCpu(target.roles);
  let seen = -1;
  let progressAt = Date.now();
  while (sink.count() - before < accepted) {
    if (sink.count() > seen) [seen, progressAt] = [sink.count(), Date.now()];
    if (Date.now() - progressAt > STALL_MS) throw new Error(`the sink stalled at ${sink.count() - before} of ${accepted}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  const cpuDrain = cpuBetween(cpuDrainBefore, readCpu(target.roles));

  const windows = Array.from({ length: Math.floor(counts.length / WINDOW_S) }, (_, i) => (counts[(i + 1) * WINDOW_S - 1]! - (counts[i * WINDOW_S - 1] ?? 0)) / WINDOW_S);
  const figures: BurstFigures = {
    apis: apis.length,
    accepted,
    other: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    delivered: duringBurst,
    intake: accepted / burstSeconds,
    during: duringBurst / burstSeconds,
    slowestWindow: windows.length > 0 ? Math.min(...windows) : NaN,
    after: (accepted - duringBurst) / drainSeconds,
    intakeCpuShare: ((cpu.api ?? 0) + (cpu.postgres ?? 0)) / (burstSeconds * cpus().length),
    workerCpuShare: (cpu.worker ?? 0) / (burstSeconds * cpus().length),
    perWorkerCpuSecond: { during: duringBurst / (cpu.worker ?? NaN), after: (accepted - duringBurst) / (cpuDrain.worker ?? NaN) },
    daemonLockWaits: waits.waiting / waits.busy,
  };
  console.log(
    [
      `burst: ${accepted} accepted in ${burstSeconds.toFixed(1)} s (${fmt(figures.intake)}/s, ${figures.other} other answers, ${figures.errors} errors); ${duringBurst} delivered meanwhile (${fmt(figures.during)}/s, slowest ${WINDOW_S} s window ${fmt(figures.slowestWindow)}/s)`,
      `after: the other ${accepted - duringBurst} delivered in ${drainSeconds.toFixed(1)} s (${fmt(figures.after)}/s); during/after ${fmt(figures.during / figures.after, 2)}`,
      `CPU during the burst: APIs and PostgreSQL ${(figures.intakeCpuShare * 100).toFixed(0)} % of the machine, worker ${(figures.workerCpuShare * 100).toFixed(0)} %`,
      `deliveries per second of the worker's CPU: ${fmt(figures.perWorkerCpuSecond.during)} during the burst, ${fmt(figures.perWorkerCpuSecond.after)} after`,
      `the worker's database sessions waited on a lock in ${waits.waiting} of ${waits.busy} busy samples`,
      `deliveries per second during the burst, second by second: ${counts.map((c, i) => c - (counts[i - 1] ?? 0)).join(' ')}`,
    ].join('\n'),
  );
  return figures;
}

const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

async function main() {
  const sinkBinary = requireSmtpSink();
  const config = loadConfig();
  const startLoad = loadavg()[0]!.toFixed(2);
  console.log('preparing the benchmark database, DNS, the sink, the API and the worker (production builds)…');
  const databaseUrl = await freshDatabase(config, DATABASE);
  await clearRedisPrefix(config, REDIS_PREFIX);
  const dns = await startTestDnsServer();
  dns.set(DOMAIN, [{ type: 'MX', exchange: `mx.${DOMAIN}`, priority: 10 }]);
  dns.set(`mx.${DOMAIN}`, [{ type: 'A', address: '127.0.0.2' }]);
  const sink = await startSmtpSink(sinkBinary, '127.0.0.2', SINK_PORT, path.join(mkdtempSync(path.join(tmpdir(), 'mailer-bench-burst-')), 'sink.out'));
  const apis = [await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX })];
  const worker = startWorker(config, databaseUrl, apis[0]!.encryptionKey, { redisPrefix: REDIS_PREFIX, dnsServer: dns.address, smtpPort: SINK_PORT });
  const database = openDatabase(databaseUrl, 2);
  try {
    const { sendingKey } = await provisionBenchSender(THIS_BUILD, database.db, apis[0]!.encryptionKey, { dns });
    const first = deliveryTarget(apis[0]!, worker, sendingKey, DATABASE);
    // Every API process started counts as the API's CPU.
    const target = { ...first, roles: { ...first.roles, api: () => apis.map((a) => a.pid) } };
    console.log(`warm-up: ${WARMUP} messages delivered…`);
    if (WARMUP > 0) await measureDelivery(target, WARMUP, benchMessage([`customer@${DOMAIN}`]), [sink], 1);

    const runs: BurstFigures[] = [];
    for (const layout of API_LAYOUTS) {
      while (apis.length < layout) apis.push(await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX, encryptionKey: apis[0]!.encryptionKey }));
      runs.push(await burst(target, apis.slice(0, layout), sink, database.db));
    }
    const row = (measure: string, value: (f: BurstFigures) => string) => `| ${measure} | ${runs.map(value).join(' | ')} |`;
    await writeBenchmarkSection(
      'Delivery during intake',
      `Run with \`npm run bench:burst\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}, load average ${startLoad} at the start).
The built APIs and daemon (default settings) on a fresh database, one account, delivering into \`smtp-sink\`; after a ${WARMUP}-message
warm-up, autocannon drives \`POST /v1/emails\` (one recipient, ~2 KB, a new Idempotency-Key each) on ${CONNECTIONS} connections for ${SECONDS} s, as fast
as the APIs answer, while the sink's count is read every second; then the backlog drains with no intake. One burst per layout, in order
on the same database (\`API_LAYOUTS\`, default \`1,2\`: one API process, then two sharing the connections; one daemon throughout). The anchor
is the daemon's own rate once intake stopped, in the same burst; contract 22: a burst at the machine's limit slows delivery in proportion to
the CPU it takes, never stops it. The last rows divide deliveries by the CPU the daemon had, during and after the burst, and sample the
daemon's PostgreSQL sessions every 0.2 s (pg_stat_activity): how often a busy one waited on a lock (on what intake holds, when high:
docs/api-decisions.md, "Data layer").

| measure | ${runs.map((f) => `${f.apis} API${f.apis === 1 ? '' : 's'}`).join(' | ')} |
|---|${runs.map(() => '---|').join('')}
${row('intake during the burst', (f) => `${fmt(f.intake)} messages/s (${f.accepted} accepted, ${f.other} other answers, ${f.errors} errors)`)}
${row('deliveries during the burst', (f) => `${fmt(f.during)}/s (${f.delivered} delivered)`)}
${row(`slowest ${WINDOW_S} s window of the burst`, (f) => `${fmt(f.slowestWindow)} deliveries/s`)}
${row('deliveries once intake stopped (the anchor)', (f) => `${fmt(f.after)}/s`)}
${row('during the burst against the anchor', (f) => fmt(f.during / f.after, 2))}
${row('machine CPU taken by the APIs and PostgreSQL during the burst', (f) => percent(f.intakeCpuShare))}
${row('machine CPU taken by the daemon during the burst', (f) => percent(f.workerCpuShare))}
${row('the rest (the load generator, Redis, other work on the machine)', (f) => percent(1 - f.intakeCpuShare - f.workerCpuShare))}
${row("deliveries per second of the daemon's CPU, during the burst / once intake stopped", (f) => `${fmt(f.perWorkerCpuSecond.during)} / ${fmt(f.perWorkerCpuSecond.after)}`)}
${row("the daemon's busy database sessions waiting on a lock during the burst", (f) => percent(f.daemonLockWaits))}`,
    );
    console.log('written to BENCHMARKS.md ("Delivery during intake")');
  } finally {
    await database.close();
    for (const api of apis) await api.stop();
    await endProcess(worker, 'SIGTERM');
    await sink.stop();
    await dns.close();
    await clearRedisPrefix(config, REDIS_PREFIX);
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
