import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@mailer/config';
import { createWebhookEndpoint, openDatabase } from '@mailer/db';
import type { Sql } from 'postgres';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { endProcess, startTestDnsServer, startWebhookReceiver } from '@mailer/testing';
import { benchMessage, BENCH_BODY_KB, provisionBenchSender, THIS_BUILD } from './bench-provisioning';
import { clearRedisPrefix, freshDatabase, startApi, startWorker } from './bench-environment';
import { writeBenchmarkSection } from './benchmarks-file';
import { median } from './median';
import { fmt } from './format';
import { CONNECTIONS, CPU_ROLES, deliveryTarget, measureDelivery, settle, SINK_PORT, STALL_MS, type DeliveryTarget, type Run } from './measure-delivery';
import { runPostfixRound, type PostfixRound } from './postfix-relay';
import { requireSmtpSink, startSmtpSink, type SmtpSink } from './smtp-sink';
import { percentile } from './percentile';

/**
 * Delivery throughput end to end: messages accepted through POST /v1/emails by the built
 * API, delivered by the built worker to smtp-sink, timed from the first request until the
 * sinks hold them all. Phase "single": N one-recipient 4 KB messages to one domain; phase
 * "multi": N_MULTI messages with 20 recipients in 20 domains (20 SMTP transactions each).
 * Each run of ours is followed by one round of Postfix relaying the same phase into
 * smtp-sink (postfix_relay.sh), so that every ratio compares neighbouring minutes of this
 * drifting machine; both, the median of the ratios, the CPU each delivery cost the worker,
 * the API and PostgreSQL (from /proc), and the worker's peak RSS go to BENCHMARKS.md ("Delivery"). Last, a webhooks round: N_WEBHOOKS messages more, with an
 * endpoint of the account on a local receiver taking every `email.accepted` event, for the
 * events sent per second and their delay from the delivery's record to the receiver.
 * `--cpu-prof` writes CPU profiles of the worker and API processes to bench-results/.
 */
const N = Number(process.env.N ?? 10_000);
const N_MULTI = Number(process.env.N_MULTI ?? 500);
const RCPTS = 20;
const RUNS = Number(process.env.RUNS ?? 3);
const N_WEBHOOKS = Number(process.env.N_WEBHOOKS ?? 5_000);
/**
 * A long-running daemon is measured warm. V8 is still compiling for about the first 5,000
 * messages (the composition threads' V8 helpers spent 35 to 45 us a message on messages 1,000
 * to 3,000, about 5 after 5,000); after a 1,000-message warm-up the first round ran 4 to 20%
 * below the next ones in five runs out of five, and level with them after 5,000.
 */
const WARMUP = Number(process.env.WARMUP ?? 5_000);
/** Against Postfix + OpenDKIM, the like-for-like (the same RSA signing per message). */
const TARGET_RATIO = 1;
const GOAL_RATIO = 3;
/** Its own database and Redis prefix, so that it never meets the intake benchmark's. */
const DATABASE = 'mailer_bench_delivery';
const REDIS_PREFIX = 'mailer_bench_delivery';

/** One of ours and the Postfix rounds run right after it: bare, then with OpenDKIM signing. */
interface Round {
  ours: Run;
  postfix?: PostfixRound;
  postfixDkim?: PostfixRound;
}

/**
 * One Postfix round measured alone: once the service's processes fell quiet, PostgreSQL has
 * written its dirty pages (a checkpoint during the anchor's run would slow its fsyncs) and the
 * API and the worker are stopped (SIGSTOP) until it ends, so that the anchor never shares the
 * machine with work of ours (BENCHMARKS.md, "Delivery").
 */
async function postfixRound(target: DeliveryTarget, db: Sql, phase: 'single' | 'multi', dkim: boolean): Promise<PostfixRound | undefined> {
  await quiet(target, db);
  const ours = [...target.roles.api!(), ...target.roles.worker!()];
  for (const pid of ours) process.kill(pid, 'SIGSTOP');
  try {
    return await runPostfixRound(phase, dkim, CONNECTIONS);
  } catch (error) {
    console.error(`postfix_relay.sh failed: ${(error as Error).message}`);
    return undefined;
  } finally {
    for (const pid of ours) process.kill(pid, 'SIGCONT');
  }
}

/** Before any measured run, ours or the anchor's: nothing left over from the last one runs during it. */
async function quiet(target: DeliveryTarget, db: Sql): Promise<void> {
  await settle(target);
  await db`CHECKPOINT`;
}

const PROFILE_DIR = process.argv.includes('--cpu-prof') ? 'bench-results' : undefined;

/** Peak resident set size of a process so far, in MiB (VmHWM). */
function peakRssMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

async function main() {
  const sinkBinary = requireSmtpSink();
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
  const api = await startApi(config, databaseUrl, { redisPrefix: REDIS_PREFIX, cpuProfileDir: PROFILE_DIR });
  const worker = startWorker(config, databaseUrl, api.encryptionKey, { redisPrefix: REDIS_PREFIX, dnsServer: dns.address, smtpPort: SINK_PORT, cpuProfileDir: PROFILE_DIR });
  // Interrupted: take the processes this benchmark started down with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      worker.kill('SIGKILL');
      void Promise.all([api.stop(), ...sinks.map((sink) => sink.stop())]).finally(() => process.exit(130));
    });
  }
  const database = openDatabase(databaseUrl, 2);
  const single: Round[] = [];
  const multi: Round[] = [];
  let webhooks: WebhookRound | undefined;
  let rssMiB = NaN;
  try {
    const provisioned = await provisionBenchSender(THIS_BUILD, database.db, api.encryptionKey, { dns });
    const singleBody = benchMessage(['customer@single.bench.test']);
    const multiBody = benchMessage(domains.slice(1).map((d) => `customer@${d}`));

    const target = deliveryTarget(api, worker, provisioned.sendingKey, DATABASE);
    const measure = async (amount: number, body: string, phaseSinks: SmtpSink[], perMessage: number) => {
      await quiet(target, database.db);
      return measureDelivery(target, amount, body, phaseSinks, perMessage);
    };

    console.log(`warm-up: ${WARMUP} messages…`);
    await measure(WARMUP, singleBody, [sinks[0]!], 1);
    const cpuNote = (run: Run) => CPU_ROLES.map((role) => `${role} ${run.cpuMs[role]!.toFixed(3)}`).join(', ');
    const postfixNote = (round: Round) => `; Postfix ${round.postfix?.e2e ?? 'n/a'}, Postfix + OpenDKIM ${round.postfixDkim?.e2e ?? 'n/a'}`;
    const withPostfix = async (phase: 'single' | 'multi', ours: Run): Promise<Round> => ({
      ours,
      postfix: await postfixRound(target, database.db, phase, false),
      postfixDkim: await postfixRound(target, database.db, phase, true),
    });
    for (let run = 1; run <= RUNS; run++) {
      const round = await withPostfix('single', await measure(N, singleBody, [sinks[0]!], 1));
      single.push(round);
      const { ours } = round;
      console.log(
        `single #${run}: ${ours.accepted} messages in ${ours.seconds.toFixed(2)} s: e2e ${(ours.accepted / ours.seconds).toFixed(0)} msg/s, accept ${(ours.accepted / ours.acceptSeconds).toFixed(0)} msg/s, ${ours.refused} refused${postfixNote(round)}; CPU ms/delivery ${cpuNote(ours)}`,
      );
    }
    for (let run = 1; run <= RUNS; run++) {
      const round = await withPostfix('multi', await measure(N_MULTI, multiBody, sinks.slice(1), RCPTS));
      multi.push(round);
      const { ours } = round;
      console.log(
        `multi #${run}: ${ours.accepted} x ${RCPTS} in ${ours.seconds.toFixed(2)} s: e2e ${((ours.accepted * RCPTS) / ours.seconds).toFixed(0)} deliveries/s, ${ours.refused} refused${postfixNote(round)}; CPU ms/delivery ${cpuNote(ours)}`,
      );
    }
    webhooks = await webhookRound(database.db, api.encryptionKey, provisioned.accountId, () => measure(N_WEBHOOKS, singleBody, [sinks[0]!], 1));
    console.log(
      `webhooks: ${webhooks.events} events, ${fmt(webhooks.eventsPerSecond)} events/s, delay p50 ${fmt(webhooks.p50)} ms, p99 ${fmt(webhooks.p99)} ms; mail ${fmt(webhooks.mailPerSecond)} msg/s meanwhile`,
    );
    rssMiB = peakRssMiB(worker.pid!);
  } finally {
    await database.close();
    await api.stop();
    await endProcess(worker, 'SIGTERM');
    for (const sink of sinks) await sink.stop();
    await dns.close();
    await clearRedisPrefix(config, REDIS_PREFIX);
  }

  await report(single, multi, webhooks, rssMiB);
}

interface WebhookRound {
  events: number;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  mailPerSecond: number;
}

/** Mail at full speed with an endpoint taking every `email.accepted` event; waits until the receiver has them all. */
async function webhookRound(db: ReturnType<typeof openDatabase>['db'], encryptionKey: Buffer, accountId: string, mail: () => Promise<Run>): Promise<WebhookRound> {
  // Answers at once; each event's delay runs from the delivery's record (its `timestamp`) to its arrival.
  const receiver = await startWebhookReceiver();
  receiver.status = 204;
  try {
    await createWebhookEndpoint(db, {
      accountId,
      url: receiver.url,
      events: ['email.accepted'],
      description: 'benchmark',
      secretSealed: seal(encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, newWebhookSecret()),
      now: new Date(),
    });
    const run = await mail();
    let seen = -1;
    let progressAt = Date.now();
    while (receiver.received.length < run.accepted) {
      if (receiver.received.length > seen) [seen, progressAt] = [receiver.received.length, Date.now()];
      if (Date.now() - progressAt > STALL_MS) throw new Error(`the webhook receiver stalled at ${seen} of ${run.accepted}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const delays = receiver.received.map((r) => r.at - Date.parse((JSON.parse(r.body) as { timestamp: string }).timestamp));
    const seconds = (receiver.received.at(-1)!.at - receiver.received[0]!.at) / 1000;
    return {
      events: delays.length,
      eventsPerSecond: delays.length / seconds,
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
      mailPerSecond: run.accepted / run.seconds,
    };
  } finally {
    await receiver.close();
  }
}

/** Other work on the machine skews every figure (2 cores): the load average when the runs started. */
const startLoad = loadavg()[0]!.toFixed(2);


/** A reference's median rate and the median of the rounds' ratios against it. */
interface Reference {
  rate?: number;
  ratio?: number;
}

interface PhaseFigures {
  ours: number;
  postfix: Reference;
  postfixDkim: Reference;
  rows: string[];
}

/** `perMessage`: deliveries per message (the multi phase counts recipient deliveries). */
function phaseFigures(rounds: Round[], perMessage: number): PhaseFigures {
  const rate = (r: Run) => (r.accepted * perMessage) / r.seconds;
  const against = (pick: (r: Round) => PostfixRound | undefined): Reference => {
    const paired = rounds.flatMap((r) => (pick(r) ? [{ ours: rate(r.ours), theirs: pick(r)!.e2e }] : []));
    if (paired.length === 0) return {};
    return { rate: median(paired.map((p) => p.theirs)), ratio: median(paired.map((p) => p.ours / p.theirs)) };
  };
  const cells = (ours: number, theirs: PostfixRound | undefined) => `${fmt(theirs?.e2e)} | ${fmt(theirs && ours / theirs.e2e, 2)}`;
  return {
    ours: median(rounds.map((r) => rate(r.ours))),
    postfix: against((r) => r.postfix),
    postfixDkim: against((r) => r.postfixDkim),
    rows: rounds.map((r, i) => `| ${i + 1} | ${fmt(rate(r.ours))} | ${cells(rate(r.ours), r.postfix)} | ${cells(rate(r.ours), r.postfixDkim)} |`),
  };
}

function cpuRow(label: string, rounds: Round[]): string {
  const per = (role: (typeof CPU_ROLES)[number]) => median(rounds.map((r) => r.ours.cpuMs[role]!));
  const total = median(rounds.map((r) => CPU_ROLES.reduce((sum, role) => sum + r.ours.cpuMs[role]!, 0)));
  return `| ${label} | ${CPU_ROLES.map((role) => fmt(per(role), 3)).join(' | ')} | ${fmt(total, 3)} |`;
}

async function report(single: Round[], multi: Round[], webhooks: WebhookRound | undefined, rssMiB: number) {
  const one = phaseFigures(single, 1);
  const many = phaseFigures(multi, RCPTS);
  const acceptRate = median(single.map((r) => r.ours.accepted / r.ours.acceptSeconds));
  const postfixAccept = single.flatMap((r) => (r.postfix?.accept === undefined ? [] : [r.postfix.accept]));
  const verdict = (r: number | undefined, level: number) => (r === undefined ? 'n/a' : r >= level ? 'met' : 'missed');
  const refused = [...single, ...multi].reduce((total, r) => total + r.ours.refused, 0);
  const lines = [
    `single: e2e ${fmt(one.ours)} msg/s, accept ${fmt(acceptRate)} msg/s; Postfix ${fmt(one.postfix.rate)} (ratio ${fmt(one.postfix.ratio, 2)}), with OpenDKIM ${fmt(one.postfixDkim.rate)} (ratio ${fmt(one.postfixDkim.ratio, 2)})`,
    `multi (${RCPTS} domains): e2e ${fmt(many.ours)} deliveries/s; Postfix ${fmt(many.postfix.rate)} (ratio ${fmt(many.postfix.ratio, 2)}), with OpenDKIM ${fmt(many.postfixDkim.rate)} (ratio ${fmt(many.postfixDkim.ratio, 2)})`,
    `worker peak RSS ${fmt(rssMiB)} MiB; ${refused} requests refused`,
  ];
  for (const l of lines) console.log(l);
  await writeBenchmarkSection(
    'Delivery',
    `Run with \`npm run bench:delivery\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}, load average ${startLoad} at the start).
End to end: the benchmark's own lean HTTP client (see post-messages.ts) posts to \`POST /v1/emails\` (${CONNECTIONS} keep-alive connections) on the built API; the built worker (one process,
default settings: \`WORKER_CONCURRENCY\`, \`DESTINATION_CONCURRENCY\`, \`COMPOSITION_THREADS\` one per core, DKIM-signed, opportunistic TLS, DNS through a local
test server) delivers to \`smtp-sink\` on 127.0.0.x:${SINK_PORT}; the clock runs from the first request until the sinks counted
every message. Single: ${N} messages, one recipient, ${BENCH_BODY_KB} KB body, after a ${WARMUP}-message warm-up.
Multi: ${N_MULTI} messages with ${RCPTS} recipients in ${RCPTS} domains (${RCPTS} SMTP transactions per message).
Postfix: one round of \`postfix_relay.sh\` (its default destination concurrency; smtp-source injects over SMTP, Postfix
relays into smtp-sink; a fresh instance each round, after the script's own warm-up, its \`WARMUP\` of 1,000 messages
unless set, which spawns its daemons: Postfix has no compiler to warm) right after each of ours, then one with \`DKIM=1\`
(OpenDKIM signing as a milter: the like-for-like, the same RSA work per message as ours), ${RUNS} rounds per phase: this machine's speed drifts by a fifth from one
minute to the next, so each ratio compares neighbouring measurements, and the figures are medians (the ratio: of the
rounds' ratios). Both sides are offered the same concurrency (${CONNECTIONS} connections; smtp-source's \`SESSIONS\`), and each
measured run, ours or Postfix's, starts once the service's processes use under 5% of a core and PostgreSQL has
checkpointed; during Postfix's rounds our API and worker are stopped (SIGSTOP), so the anchor has the machine to itself.
During ours, API, worker, PostgreSQL, Redis, the sinks and the load generator share the machine.

| round | ours, 1 recipient (msg/s) | Postfix | ratio | Postfix + OpenDKIM | ratio |
|---|---|---|---|---|---|
${one.rows.join('\n')}

| round | ours, ${RCPTS} recipients in ${RCPTS} domains (deliveries/s) | Postfix | ratio | Postfix + OpenDKIM | ratio |
|---|---|---|---|---|---|
${many.rows.join('\n')}

| measure | ours | Postfix | ratio | Postfix + OpenDKIM | ratio |
|---|---|---|---|---|---|
| e2e, 1 recipient (msg/s) | ${fmt(one.ours)} | ${fmt(one.postfix.rate)} | ${fmt(one.postfix.ratio, 2)} | ${fmt(one.postfixDkim.rate)} | ${fmt(one.postfixDkim.ratio, 2)} |
| accept rate, 1 recipient (msg/s) | ${fmt(acceptRate)} | ${fmt(postfixAccept.length > 0 ? median(postfixAccept) : undefined)} | | | |
| e2e, ${RCPTS} recipients in ${RCPTS} domains (deliveries/s) | ${fmt(many.ours)} | ${fmt(many.postfix.rate)} | ${fmt(many.postfix.ratio, 2)} | ${fmt(many.postfixDkim.rate)} | ${fmt(many.postfixDkim.ratio, 2)} |
| worker peak RSS | ${fmt(rssMiB)} MiB | | | | |
| requests refused | ${refused} | | | | |

CPU per delivery (median of the rounds; user and system time of every thread but a profiler's, from /proc, over each run of ours): a
figure that drifts less than the rates when other work shares the machine.

| phase | worker (ms) | API (ms) | PostgreSQL backends (ms) | Redis (ms) | all (ms) |
|---|---|---|---|---|---|
${cpuRow('1 recipient', single)}
${cpuRow(`${RCPTS} recipients in ${RCPTS} domains`, multi)}

Webhooks while mail flows (after the rounds above): ${N_WEBHOOKS} more messages, the account with one endpoint on a local receiver
(answering 204 at once) taking every \`email.accepted\` event, signed as always; the delay runs from the delivery's record
(the event's \`timestamp\`) to its arrival at the receiver.

| measure | value |
|---|---|
| events sent per second | ${fmt(webhooks?.eventsPerSecond)} |
| delay p50 / p99 | ${fmt(webhooks?.p50)} ms / ${fmt(webhooks?.p99)} ms |
| mail meanwhile, 1 recipient (msg/s) | ${fmt(webhooks?.mailPerSecond)} |

Target (>= ${TARGET_RATIO}x Postfix + OpenDKIM end to end): ${verdict(one.postfixDkim.ratio, TARGET_RATIO)} (1 recipient), ${verdict(many.postfixDkim.ratio, TARGET_RATIO)} (${RCPTS} domains).
Goal (>= ${GOAL_RATIO}x Postfix + OpenDKIM): ${verdict(one.postfixDkim.ratio, GOAL_RATIO)}, ${verdict(many.postfixDkim.ratio, GOAL_RATIO)}.`,
  );
  console.log('written to BENCHMARKS.md (Delivery)');
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
