import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig, type Config } from '@mailer/config';
import { createAccount, openDatabase, setAccountPlan } from '@mailer/db';
import { insertReadyDomain, insertSender, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { clearRedisPrefix, freshDatabase, productionEnv, startApi } from './bench-environment';
import { writeBenchmarkSection } from './benchmarks-file';
import { median } from './median';
import { runPostfixRelay, type PostfixFigures } from './postfix-relay';
import { findSmtpSink, SMTP_SINK_MISSING, startSmtpSink, type SmtpSink } from './smtp-sink';

/**
 * Delivery throughput end to end: messages accepted through POST /v1/emails by the built
 * API, delivered by the built worker to smtp-sink, timed from the first request until the
 * sinks hold them all. Phase "single": N one-recipient 4 KB messages to one domain; phase
 * "multi": N_MULTI messages with 20 recipients in 20 domains (20 SMTP transactions each).
 * The same run then measures Postfix relaying into smtp-sink (postfix_relay.sh) and
 * writes both, their ratio and the worker's peak RSS to BENCHMARKS.md ("Delivery").
 * `--cpu-prof` writes a CPU profile of the worker process to bench-results/.
 */
const N = Number(process.env.N ?? 10_000);
const N_MULTI = Number(process.env.N_MULTI ?? 500);
const RCPTS = 20;
const RUNS = Number(process.env.RUNS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 1_000);
const CONNECTIONS = 50;
const SINK_PORT = 2600;
const BODY_BYTES = 4_096;
/** A run fails when the sinks count nothing new for this long. */
const STALL_MS = 60_000;
const TARGET_RATIO = 1;
const GOAL_RATIO = 2;
/** What profiling this build showed; the figures above say how far it got. */
const ANALYSIS = `Where the CPU goes (profiles of the worker with \`--cpu-prof\`, per 1-recipient message, this machine): building
the MIME message with nodemailer's composer about 1.0 ms and DKIM-signing it with nodemailer's signer about 1.4 ms
(0.75 ms of it the RSA-2048 signature), on composition threads beside the event loop; the event loop about 1.5 ms
(SMTP with RSET per reused connection, PostgreSQL, BullMQ); PostgreSQL for the claim and the attempt record; and the
API's intake. All of it shares 2 cores, so the end-to-end rate is bounded by the sum.
What this build removed (found with per-process CPU from /proc, pg_stat_statements and auto_explain during the run):
PostgreSQL used a whole core for the daemon alone, because the claim's prepared statement kept a generic plan made
while the tables were small, and scanned every message and every delivery per batch until the next autoanalyze.
Service connections now rule out sequential scans where an index can serve, and the attempt record locks its rows one
key probe at a time (as a join, the planner then walked the whole primary key instead). Intake also got cheaper (see
Intake). Together they took the 1-recipient ratio from about 0.75 to about 1 and the 20-domain ratio from 0.75 to 1.5.
What is left: every attempt record and every intake batch of one account take that account's usage row (the
active-delivery counter) and the sender's row in turn, so on a single account they queue on each other.
Postfix in this comparison relays without DKIM signing, MIME building or per-recipient records in a database.
What the worker does to stay lean: it claims (context and lease) and records attempts of concurrent jobs in one
statement per batch (one commit and one turn on the account's usage and sender rows for many messages), reuses SMTP
connections, caches MX and address answers for 30 s, and builds and signs off the event loop.`;
const WORKER_MAIN = path.resolve(__dirname, '../../worker/dist/main.js');
/** Its own database and Redis prefix, so that it never meets the intake benchmark's. */
const DATABASE = 'mailer_bench_delivery';
const REDIS_PREFIX = 'mailer_bench_delivery';
const UNLIMITED = { perMinute: 1e9, perHour: 1e9, perDay: 1e9, per30Days: 2e9, maxActive: 2e9 };

interface Run {
  seconds: number;
  acceptSeconds: number;
  accepted: number;
  refused: number;
}

function startWorker(config: Config, databaseUrl: string, encryptionKey: Buffer, dns: TestDnsServer): ChildProcess {
  const profile = process.argv.includes('--cpu-prof') ? ['--cpu-prof', '--cpu-prof-dir=bench-results'] : [];
  return spawn(process.execPath, [...profile, WORKER_MAIN], {
    env: {
      ...productionEnv(config, databaseUrl, encryptionKey, REDIS_PREFIX),
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(SINK_PORT),
      SMTP_HELO_NAME: 'worker.bench.test',
      ALLOW_PRIVATE_MX: 'true',
      WORKER_METRICS_PORT: '0',
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(WORKER_|DESTINATION_|DATABASE_POOL_SIZE|SMTP_POOL_IDLE)/.test(k))),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Peak resident set size of a process so far, in MiB (VmHWM). */
function peakRssMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

async function main() {
  const sinkBinary = findSmtpSink();
  if (!sinkBinary) {
    console.error(SMTP_SINK_MISSING);
    process.exit(2);
  }
  const config = loadConfig();
  console.log('preparing the benchmark database, DNS, sinks, the API and the worker (production builds)…');
  const databaseUrl = await freshDatabase(config, DATABASE);
  await clearRedisPrefix(config, REDIS_PREFIX);
  const dns = await startTestDnsServer();
  const sinkDir = mkdtempSync(path.join(tmpdir(), 'mailer-bench-sink-'));
  // The single phase's MX on 127.0.0.2, the 20 multi-phase domains' on 127.0.0.3-22: one sink each, all on SINK_PORT.
  const domains = ['single.bench.test', ...Array.from({ length: RCPTS }, (_, k) => `d${k + 1}.bench.test`)];
  const sinks: SmtpSink[] = [];
  for (const [i, domain] of domains.entries()) {
    const address = `127.0.0.${i + 2}`;
    dns.set(domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]);
    dns.set(`mx.${domain}`, [{ type: 'A', address }]);
    sinks.push(await startSmtpSink(sinkBinary, address, SINK_PORT, path.join(sinkDir, `${domain}.out`)));
  }
  const api = await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX });
  const worker = startWorker(config, databaseUrl, api.encryptionKey, dns);
  // Interrupted: take the processes this benchmark started down with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      worker.kill('SIGKILL');
      void Promise.all([api.stop(), ...sinks.map((sink) => sink.stop())]).finally(() => process.exit(130));
    });
  }
  const database = openDatabase(databaseUrl, 2);
  const single: Run[] = [];
  const multi: Run[] = [];
  let rssMiB = NaN;
  try {
    const provisioned = await createAccount(database.db, 'Delivery benchmark');
    await setAccountPlan(database.db, provisioned.account.id, UNLIMITED);
    const domain = await insertReadyDomain(database.db, api.encryptionKey, provisioned.account.id, 'bench.test');
    dns.set(`${domain.dkim.selector}._domainkey.bench.test`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
    await insertSender(database.db, provisioned.account.id, domain.id, 'orders@bench.test', { displayName: 'Bench Shop' });

    const line = 'Thank you for your order. Your parcel is on its way and should arrive within two days.\n';
    const plain = line.repeat(Math.ceil(BODY_BYTES / line.length)).slice(0, BODY_BYTES);
    const bodyFor = (to: string[]) => JSON.stringify({ from: 'orders@bench.test', to, subject: 'Your order has shipped', content: { plain } });
    const singleBody = bodyFor(['customer@single.bench.test']);
    const multiBody = bodyFor(domains.slice(1).map((d) => `customer@${d}`));

    const measure = async (amount: number, body: string, phaseSinks: SmtpSink[], perMessage: number): Promise<Run> => {
      const before = phaseSinks.reduce((total, sink) => total + sink.count(), 0);
      const started = Date.now();
      const result = await autocannon({
        url: api.baseUrl,
        connections: CONNECTIONS,
        amount,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: '/v1/emails',
            headers: { authorization: `Bearer ${provisioned.sending_key}`, 'content-type': 'application/json' },
            body,
            setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
          },
        ],
      });
      const acceptSeconds = (Date.now() - started) / 1000;
      const expected = before + result['2xx'] * perMessage;
      let seen = -1;
      let progressAt = Date.now();
      for (;;) {
        const count = phaseSinks.reduce((total, sink) => total + sink.count(), 0);
        if (count >= expected) break;
        if (count > seen) [seen, progressAt] = [count, Date.now()];
        if (Date.now() - progressAt > STALL_MS) throw new Error(`the sinks stalled at ${count - before} of ${expected - before}`);
        if (worker.exitCode !== null) throw new Error('the worker exited');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { seconds: (Date.now() - started) / 1000, acceptSeconds, accepted: result['2xx'], refused: result.non2xx + result.errors };
    };

    console.log(`warm-up: ${WARMUP} messages…`);
    await measure(WARMUP, singleBody, [sinks[0]!], 1);
    for (let run = 1; run <= RUNS; run++) {
      const r = await measure(N, singleBody, [sinks[0]!], 1);
      single.push(r);
      console.log(`single #${run}: ${r.accepted} messages in ${r.seconds.toFixed(2)} s: e2e ${(r.accepted / r.seconds).toFixed(0)} msg/s, accept ${(r.accepted / r.acceptSeconds).toFixed(0)} msg/s, ${r.refused} refused`);
    }
    for (let run = 1; run <= RUNS; run++) {
      const r = await measure(N_MULTI, multiBody, sinks.slice(1), RCPTS);
      multi.push(r);
      console.log(`multi #${run}: ${r.accepted} x ${RCPTS} in ${r.seconds.toFixed(2)} s: e2e ${((r.accepted * RCPTS) / r.seconds).toFixed(0)} deliveries/s, ${r.refused} refused`);
    }
    rssMiB = peakRssMiB(worker.pid!);
  } finally {
    await database.close();
    await api.stop();
    await new Promise<void>((resolve) => {
      if (worker.exitCode !== null) return resolve();
      worker.once('exit', () => resolve());
      worker.kill('SIGTERM');
    });
    for (const sink of sinks) await sink.stop();
    await dns.close();
    await clearRedisPrefix(config, REDIS_PREFIX);
  }

  console.log('Postfix reference (postfix_relay.sh)…');
  const postfix = await runPostfixRelay().catch((error: Error) => {
    console.error(`postfix_relay.sh failed: ${error.message}`);
    return undefined;
  });
  await report(single, multi, rssMiB, postfix);
}

/** Other work on the machine skews every figure (2 cores): the load average when the runs started. */
const startLoad = loadavg()[0]!.toFixed(2);

async function report(single: Run[], multi: Run[], rssMiB: number, postfix: PostfixFigures | undefined) {
  const singleRate = median(single.map((r) => r.accepted / r.seconds));
  const acceptRate = median(single.map((r) => r.accepted / r.acceptSeconds));
  const multiRate = median(multi.map((r) => (r.accepted * RCPTS) / r.seconds));
  const ratio = (ours: number, theirs: number | undefined) => (theirs ? ours / theirs : undefined);
  const singleRatio = ratio(singleRate, postfix?.singleE2e);
  const multiRatio = ratio(multiRate, postfix?.multiDeliveries);
  const fmt = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits));
  const verdict = (r: number | undefined, level: number) => (r === undefined ? 'n/a' : r >= level ? 'met' : 'missed');
  const runs = (list: Run[], perMessage: number) => list.map((r) => ((r.accepted * perMessage) / r.seconds).toFixed(0)).join(', ');
  const refused = [...single, ...multi].reduce((total, r) => total + r.refused, 0);
  const lines = [
    `single: e2e ${fmt(singleRate)} msg/s (runs ${runs(single, 1)}), accept ${fmt(acceptRate)} msg/s; Postfix e2e ${fmt(postfix?.singleE2e)} msg/s; ratio ${fmt(singleRatio, 2)}`,
    `multi (${RCPTS} domains): e2e ${fmt(multiRate)} deliveries/s (runs ${runs(multi, RCPTS)}); Postfix ${fmt(postfix?.multiDeliveries)} deliveries/s; ratio ${fmt(multiRatio, 2)}`,
    `worker peak RSS ${fmt(rssMiB)} MiB; ${refused} requests refused`,
  ];
  for (const l of lines) console.log(l);
  await writeBenchmarkSection(
    'Delivery',
    `Run with \`npm run bench:delivery\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}, load average ${startLoad} at the start).
End to end: autocannon posts to \`POST /v1/emails\` (${CONNECTIONS} connections) on the built API; the built worker (one process,
default settings: \`WORKER_CONCURRENCY\`, \`DESTINATION_CONCURRENCY\`, \`COMPOSITION_THREADS\` one per core, DKIM-signed, opportunistic TLS, DNS through a local
test server) delivers to \`smtp-sink\` on 127.0.0.x:${SINK_PORT}; the clock runs from the first request until the sinks counted
every message. Single: ${N} messages, one recipient, ${BODY_BYTES / 1024} KB body, ${RUNS} runs after a ${WARMUP}-message warm-up.
Multi: ${N_MULTI} messages with ${RCPTS} recipients in ${RCPTS} domains (${RCPTS} SMTP transactions per message), ${RUNS} runs.
Postfix: \`postfix_relay.sh\` in the same run (its default destination concurrency; smtp-source injects over SMTP, Postfix
relays into smtp-sink), medians of its runs. API, worker, PostgreSQL, Redis, the sinks and the load generator share the machine.

| measure | ours | Postfix | ratio |
|---|---|---|---|
| e2e, 1 recipient (msg/s) | ${fmt(singleRate)} (runs: ${runs(single, 1)}) | ${fmt(postfix?.singleE2e)} | ${fmt(singleRatio, 2)} |
| accept rate, 1 recipient (msg/s) | ${fmt(acceptRate)} | ${fmt(postfix?.singleAccept)} | |
| e2e, ${RCPTS} recipients in ${RCPTS} domains (deliveries/s) | ${fmt(multiRate)} (runs: ${runs(multi, RCPTS)}) | ${fmt(postfix?.multiDeliveries)} | ${fmt(multiRatio, 2)} |
| worker peak RSS | ${fmt(rssMiB)} MiB | | |
| requests refused | ${refused} | | |

Target (>= ${TARGET_RATIO}x Postfix end to end): ${verdict(singleRatio, TARGET_RATIO)} (1 recipient), ${verdict(multiRatio, TARGET_RATIO)} (${RCPTS} domains).
Goal (>= ${GOAL_RATIO}x): ${verdict(singleRatio, GOAL_RATIO)}, ${verdict(multiRatio, GOAL_RATIO)}.

${ANALYSIS}`,
  );
  console.log('written to BENCHMARKS.md (Delivery)');
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
