import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '@mailer/config';
import { endProcess, startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { clearRedisPrefix, freshDatabase, startApi, startWorker, THIS_CHECKOUT } from './bench-environment';
import { benchMessage, BENCH_BODY_KB, provisionBenchSender, provisioningOf, THIS_BUILD, type BuildProvisioning } from './bench-provisioning';
import { writeBenchmarkSection } from './benchmarks-file';
import { fmt } from './format';
import { CONNECTIONS, CPU_ROLES, deliveryTarget, measureDelivery, SINK_PORT, type Run } from './measure-delivery';
import { median } from './median';
import { requireSmtpSink, startSmtpSink, type SmtpSink } from './smtp-sink';

/**
 * This build's one-recipient delivery against other builds of the service:
 * `npm run bench:compare -- <checkout>…`, each checkout built (`npm ci && npx tsc -b` there; a
 * commit is checked out with `git worktree add <dir> <commit>`). A start runs one build's API
 * and daemon on a database migrated and provisioned by that build's own code, sends a
 * WARMUP-message warm-up and then ROUNDS rounds of N messages into smtp-sink; the builds take
 * turns start by start, STARTS times over. This machine's speed drifts by a fifth from one
 * minute to the next, so a ratio only compares neighbouring starts: each start's ratio is of
 * the medians of its rounds, and the result is the median of those ratios.
 */
const N = Number(process.env.N ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const STARTS = Number(process.env.STARTS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 5_000);
const DATABASE = 'mailer_bench_compare';
const REDIS_PREFIX = 'mailer_bench_compare';

interface Build {
  /** The checkout's directory name and commit. */
  name: string;
  checkout: string;
  provisioning: BuildProvisioning;
}

/** What a start leaves running, taken down if the benchmark is interrupted. */
const running = new Set<() => Promise<void>>();

function commitOf(checkout: string): string {
  try {
    const commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['-C', checkout, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return changed ? `${commit} with changes` : commit;
  } catch {
    return 'not a git checkout';
  }
}

/** One build's start: fresh database, its API and daemon, a warm-up, then the measured rounds. */
async function runStart(build: Build, config: Config, dns: TestDnsServer, sink: SmtpSink): Promise<Run[]> {
  const databaseUrl = await freshDatabase(config, DATABASE, build.provisioning.migrateDatabase);
  await clearRedisPrefix(config, REDIS_PREFIX);
  const api = await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX, checkout: build.checkout });
  const worker = startWorker(config, databaseUrl, api.encryptionKey, { redisPrefix: REDIS_PREFIX, dnsServer: dns.address, smtpPort: SINK_PORT, checkout: build.checkout });
  const stop = async () => {
    await endProcess(worker, 'SIGTERM');
    await api.stop();
  };
  running.add(stop);
  const database = build.provisioning.openDatabase(databaseUrl, 2);
  try {
    const { sendingKey } = await provisionBenchSender(build.provisioning, database.db, api.encryptionKey, { dns });
    const target = deliveryTarget(api, worker, sendingKey, DATABASE);
    const body = benchMessage(['customer@single.bench.test']);
    await measureDelivery(target, WARMUP, body, [sink], 1);
    const runs: Run[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const run = await measureDelivery(target, N, body, [sink], 1);
      console.log(`${build.name}, round ${round}: ${fmt(rate(run))} msg/s; CPU ms/message ${CPU_ROLES.map((role) => `${role} ${run.cpuMs[role]!.toFixed(3)}`).join(', ')}`);
      runs.push(run);
    }
    return runs;
  } finally {
    await database.close();
    await stop();
    running.delete(stop);
    await clearRedisPrefix(config, REDIS_PREFIX);
  }
}

const rate = (run: Run) => run.accepted / run.seconds;

async function main() {
  const others = process.argv.slice(2).map((dir) => path.resolve(dir));
  if (others.length === 0) {
    console.error('usage: npm run bench:compare -- <built checkout>… (compared with this one)');
    process.exit(2);
  }
  const sinkBinary = requireSmtpSink();
  // The others first: a start of this build is compared with the starts just before it.
  const builds: Build[] = [
    ...others.map((checkout) => ({ name: `${path.basename(checkout)} (${commitOf(checkout)})`, checkout, provisioning: provisioningOf(checkout) })),
    { name: `this checkout (${commitOf(THIS_CHECKOUT)})`, checkout: THIS_CHECKOUT, provisioning: THIS_BUILD },
  ];
  const config = loadConfig();
  const dns = await startTestDnsServer();
  dns.set('single.bench.test', [{ type: 'MX', exchange: 'mx.single.bench.test', priority: 10 }]);
  dns.set('mx.single.bench.test', [{ type: 'A', address: '127.0.0.2' }]);
  const sink = await startSmtpSink(sinkBinary, '127.0.0.2', SINK_PORT, path.join(mkdtempSync(path.join(tmpdir(), 'mailer-compare-sink-')), 'out'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void Promise.all([...running].map((stop) => stop())).finally(() => process.exit(130)));
  }
  const starts: Run[][][] = [];
  try {
    for (let start = 1; start <= STARTS; start++) {
      const runs: Run[][] = [];
      for (const build of builds) runs.push(await runStart(build, config, dns, sink));
      starts.push(runs);
    }
  } finally {
    await sink.stop();
    await dns.close();
  }
  await report(builds, starts);
}

/** `starts[s][b]`: build b's rounds in start s. */
async function report(builds: Build[], starts: Run[][][]) {
  const ours = builds.length - 1;
  const startMedian = (runs: Run[]) => median(runs.map(rate));
  const startRows = starts.map(
    (runs, s) => `| ${s + 1} | ${builds.map((_, b) => runs[b]!.map((r) => fmt(rate(r))).join(', ')).join(' | ')} | ${builds.slice(0, ours).map((_, b) => fmt(startMedian(runs[ours]!) / startMedian(runs[b]!), 2)).join(' | ')} |`,
  );
  const allRounds = (b: number) => starts.flatMap((runs) => runs[b]!);
  const ratios = builds.slice(0, ours).map((_, b) => median(starts.map((runs) => startMedian(runs[ours]!) / startMedian(runs[b]!))));
  const cpuRows = builds.map((build, b) => {
    const perRole = CPU_ROLES.map((role) => median(allRounds(b).map((r) => r.cpuMs[role]!)));
    return `| ${build.name} | ${fmt(median(allRounds(b).map(rate)))} | ${perRole.map((v) => fmt(v, 3)).join(' | ')} | ${fmt(perRole.reduce((a, v) => a + v, 0), 3)} |`;
  });
  for (const [b, ratio] of ratios.entries()) console.log(`this checkout against ${builds[b]!.name}: ${fmt(ratio, 2)} (median of ${starts.length} starts' ratios)`);
  await writeBenchmarkSection(
    'Builds compared',
    `Run with \`npm run bench:compare\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}).
One recipient, ${BENCH_BODY_KB} KB messages posted on ${CONNECTIONS} connections and delivered into one loopback smtp-sink; each start runs one
build's API and daemon on a fresh database, a ${WARMUP}-message warm-up and then ${ROUNDS} rounds of ${N} messages; the builds take
turns, start by start. A start's ratio is this checkout's median round against the other build's in the start just before.

| start | ${builds.map((b) => `${b.name}, msg/s`).join(' | ')} | ${builds
      .slice(0, ours)
      .map((b) => `ratio to ${b.name}`)
      .join(' | ')} |
|${'---|'.repeat(builds.length + ours + 1)}
${startRows.join('\n')}

${ratios.map((ratio, b) => `This checkout against ${builds[b]!.name}: **${fmt(ratio, 2)}** (median of the starts' ratios).`).join('\n')}

CPU per message (median of every round; user and system time from /proc):

| build | msg/s (median round) | ${CPU_ROLES.map((role) => `${role} (ms)`).join(' | ')} | all (ms) |
|---|---|${'---|'.repeat(CPU_ROLES.length + 1)}
${cpuRows.join('\n')}`,
  );
  console.log('written to BENCHMARKS.md (Builds compared)');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
