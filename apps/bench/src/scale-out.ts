import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '@mailer/config';
import { openDatabase } from '@mailer/db';
import { endProcess, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { benchMessage, provisionBenchSender, THIS_BUILD } from './bench-provisioning';
import { clearRedisPrefix, freshDatabase, startApi, startWorker, type ApiProcess } from './bench-environment';
import { writeBenchmarkSection } from './benchmarks-file';
import { fmt } from './format';
import { CONNECTIONS, SINK_PORT, STALL_MS } from './measure-delivery';
import { median } from './median';
import { postMessages } from './post-messages';
import { requireSmtpSink, startSmtpSink, type SmtpSink } from './smtp-sink';

/**
 * `npm run bench:scale`: delivery throughput end to end with 1, 2 and 3 daemon processes and 1
 * and 2 API processes on this machine, each layout on a fresh database: N one-recipient messages
 * posted through the APIs (their share each, at once) after a warm-up, timed from the first
 * request until smtp-sink counted them all, RUNS times. With each run, what a delivered message
 * costs PostgreSQL (commits and WAL bytes, read from pg_stat_database and the WAL position) and
 * how often a backend waited for another transaction's lock (pg_locks sampled): the costs that
 * grow with the fleet rather than with the machine. Writes BENCHMARKS.md ("Scale-out").
 */
const N = Number(process.env.N ?? 5_000);
const WARMUP = Number(process.env.WARMUP ?? 2_000);
const RUNS = Number(process.env.RUNS ?? 2);
const LAYOUTS = [
  { apis: 1, daemons: 1 },
  { apis: 1, daemons: 2 },
  { apis: 1, daemons: 3 },
  { apis: 2, daemons: 1 },
  { apis: 2, daemons: 2 },
  { apis: 2, daemons: 3 },
];
const DATABASE = 'mailer_bench_scale';
const REDIS_PREFIX = 'mailer_bench_scale';
/** The recipients' domain, whose MX is the sink. */
const DOMAIN = 'scale.sink.test';

interface LayoutFigures {
  apis: number;
  daemons: number;
  perSecond: number[];
  commitsPerMessage: number;
  walBytesPerMessage: number;
  /** Share of samples during the runs in which some backend waited for a lock another transaction held. */
  lockWaitShare: number;
}

async function main() {
  const sinkBinary = requireSmtpSink();
  const config = loadConfig();
  const startLoad = loadavg()[0]!.toFixed(2);
  const dns = await startTestDnsServer();
  dns.set(DOMAIN, [{ type: 'MX', exchange: `mx.${DOMAIN}`, priority: 10 }]);
  dns.set(`mx.${DOMAIN}`, [{ type: 'A', address: '127.0.0.2' }]);
  const sink = await startSmtpSink(sinkBinary, '127.0.0.2', SINK_PORT, path.join(mkdtempSync(path.join(tmpdir(), 'mailer-bench-scale-')), 'sink.out'));
  const figures: LayoutFigures[] = [];
  try {
    for (const layout of LAYOUTS) figures.push(await measureLayout(config, dns, sink, layout));
  } finally {
    await sink.stop();
    await dns.close();
  }
  const base = median(figures[0]!.perSecond);
  const rows = figures.map(
    (f) =>
      `| ${f.apis} | ${f.daemons} | ${f.perSecond.map((v) => fmt(v)).join(', ')} | ${fmt(median(f.perSecond))} | ${(median(f.perSecond) / base).toFixed(2)} | ${f.commitsPerMessage.toFixed(1)} | ${fmt(f.walBytesPerMessage)} | ${(f.lockWaitShare * 100).toFixed(0)} % |`,
  );
  await writeBenchmarkSection(
    'Scale-out',
    `Run with \`npm run bench:scale\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}, load average ${startLoad} at the start).
Each layout of built API and daemon processes (default settings) on a fresh database: ${N} one-recipient messages of one account posted through the APIs
(${CONNECTIONS} keep-alive connections in all, shared between them) after a ${WARMUP}-message warm-up, timed from the first request until \`smtp-sink\` counted them; ${RUNS} runs.
The anchor is the first row (one API, one daemon) of the same run. Commits and WAL bytes are per delivered message, over the measured runs; the lock-wait
share is the share of samples (every 20 ms while the runs went) in which some backend of the service waited for a lock another transaction held.

| APIs | daemons | deliveries/s, each run | median | against 1 API, 1 daemon | commits / message | WAL bytes / message | lock waits |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}`,
  );
  console.log('written to BENCHMARKS.md ("Scale-out")');
}

async function measureLayout(config: Config, dns: TestDnsServer, sink: SmtpSink, layout: { apis: number; daemons: number }): Promise<LayoutFigures> {
  const databaseUrl = await freshDatabase(config, DATABASE);
  await clearRedisPrefix(config, REDIS_PREFIX);
  const apis: ApiProcess[] = [];
  const first = await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX });
  apis.push(first);
  for (let i = 1; i < layout.apis; i++) apis.push(await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX, encryptionKey: first.encryptionKey }));
  const daemons = Array.from({ length: layout.daemons }, () => startWorker(config, databaseUrl, first.encryptionKey, { redisPrefix: REDIS_PREFIX, dnsServer: dns.address, smtpPort: SINK_PORT }));
  const database = openDatabase(databaseUrl, 2);
  try {
    const { sendingKey } = await provisionBenchSender(THIS_BUILD, database.db, first.encryptionKey, { dns });
    const body = benchMessage([`customer@${DOMAIN}`]);
    const send = async (amount: number) => {
      const before = sink.count();
      const started = Date.now();
      const share = Math.ceil(amount / apis.length);
      const results = await Promise.all(
        apis.map((api) =>
          postMessages({
            url: api.baseUrl,
            path: '/v1/emails',
            connections: Math.ceil(CONNECTIONS / apis.length),
            amount: share,
            headers: { authorization: `Bearer ${sendingKey}`, 'content-type': 'application/json' },
            body,
            timeoutMs: 30_000,
          }),
        ),
      );
      const accepted = results.reduce((t, r) => t + r.accepted, 0);
      let seen = -1;
      let progressAt = Date.now();
      while (sink.count() < before + accepted) {
        if (sink.count() > seen) [seen, progressAt] = [sink.count(), Date.now()];
        if (Date.now() - progressAt > STALL_MS) throw new Error(`the sink stalled at ${sink.count() - before} of ${accepted}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return accepted / ((Date.now() - started) / 1000);
    };
    await send(WARMUP);
    const stats = async () => {
      const [row] = await database.db`
        select xact_commit::bigint as commits, pg_current_wal_lsn() - '0/0'::pg_lsn as wal
          from pg_stat_database where datname = ${DATABASE}`;
      return { commits: Number(row!.commits), wal: Number(row!.wal) };
    };
    const before = await stats();
    const perSecond: number[] = [];
    let samples = 0;
    let waiting = 0;
    for (let run = 1; run <= RUNS; run++) {
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await database.db`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = ${DATABASE}`;
          samples++;
          if (row!.n > 0) waiting++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      perSecond.push(await send(N));
      sampling = false;
      await sampler;
      console.log(`${layout.apis} API(s), ${layout.daemons} daemon(s), run ${run}: ${fmt(perSecond.at(-1)!)} deliveries/s`);
    }
    const after = await stats();
    const messages = N * RUNS;
    return { ...layout, perSecond, commitsPerMessage: (after.commits - before.commits) / messages, walBytesPerMessage: (after.wal - before.wal) / messages, lockWaitShare: samples ? waiting / samples : 0 };
  } finally {
    await database.close();
    await Promise.all(daemons.map((d) => endProcess(d, 'SIGTERM')));
    await Promise.all(apis.map((a) => a.stop()));
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
