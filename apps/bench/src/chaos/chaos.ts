import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, parseDuration } from '@mailer/config';
import { openDatabase } from '@mailer/db';
import { isTerminal, type DeliveryStatus } from '@mailer/domain';
import { endProcess, freePort, messageIdOf, SENTINEL_MASTER, startPrivatePostgres, startPrivateRedis, startTestDnsServer, startTestSmtpServer } from '@mailer/testing';
import { provisionBenchSender, THIS_BUILD } from '../bench-provisioning';
import { freshDatabase, startApi, startWorker } from '../bench-environment';
import { RELIABILITY_FILE, writeMarkdownSection } from '../benchmarks-file';
import { audit, targetsMet, type AuditSummary, type FaultDone } from './audit';
import { sendUnderChaos } from './chaos-client';
import { defaultTimeline, formatTimeline, parseTimeline, type Fault, type FaultKind } from './fault-timeline';
import { Supervised } from './supervisor';

/**
 * `npm run chaos`: N_API APIs and N_DAEMONS daemons (the production builds) on a PostgreSQL
 * primary with a synchronous standby and a Redis master with a replica and three Sentinels,
 * all of the run's own, under a steady load of RATE messages a second (MESSAGES in all, or
 * RATE x DURATION) from a client that retries as an SDK would, while daemons and APIs are
 * killed with SIGKILL, Redis is flushed, restarted empty and failed over, and PostgreSQL
 * crashes and fails over (FAULTS, or ROUNDS rounds of each). Then it waits (up to DRAIN_CAP)
 * until every accepted message is terminal and at the sink, audits the sink against the
 * accepted ids and writes the "Latest run" section of RELIABILITY.md.
 */
const env = process.env;
const N_API = Number(env.N_API ?? 2);
const N_DAEMONS = Number(env.N_DAEMONS ?? 2);
const RATE = Number(env.RATE ?? 100);
const MESSAGES = env.DURATION ? Math.round(RATE * durationMs(env.DURATION) / 1000) : Number(env.MESSAGES ?? 3000);
const LOAD_MS = (MESSAGES / RATE) * 1000;
const ROUNDS = Number(env.ROUNDS ?? 2);
const TIMELINE: Fault[] = env.FAULTS ? parseTimeline(env.FAULTS) : defaultTimeline(LOAD_MS, ROUNDS);
/** A killed process is started again this much later. */
const RESTART_AFTER_MS = durationMs(env.RESTART_AFTER ?? '5s');
/** How long Redis stays away on a restart. */
const REDIS_DOWN_MS = durationMs(env.REDIS_DOWN ?? '3s');
const DRAIN_CAP_MS = durationMs(env.DRAIN_CAP ?? '5m');
/** What a run must show besides nothing lost and no 5xx but 503 (RELIABILITY.md, "Targets"). */
const TARGETS = { drainSeconds: 120, duplicatesPerKill: 5 };
const REQUEST_TIMEOUT_MS = 30_000;
const DOMAIN = 'chaos.test';
const SINK_DOMAIN = 'sink.chaos.test';

function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`"${text}" is not a duration such as 30s or 5m`);
  return ms;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const runStarted = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - runStarted) / 1000).toFixed(1).padStart(6)}s] ${line}`);

async function main() {
  const workDir = mkdtempSync(path.join(tmpdir(), 'mailer-chaos-'));
  const outputFd = openSync(path.join(workDir, 'processes.log'), 'a');
  log(`${N_API} APIs, ${N_DAEMONS} daemons, ${MESSAGES} messages at ${RATE}/s; faults: ${formatTimeline(TIMELINE)}`);
  log(`process logs in ${workDir}/processes.log`);
  const pg = await startPrivatePostgres({ standby: true });
  const redis = await startPrivateRedis({ sentinels: true });
  const config = loadConfig({
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    REDIS_SENTINELS: redis.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
    REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
  });
  const databaseUrl = await freshDatabase(config, 'mailer_chaos');
  const dns = await startTestDnsServer();
  const smtpPort = await freePort('127.0.0.2');
  const sink = await startTestSmtpServer({ host: '127.0.0.2', port: smtpPort, tls: 'none' });
  const database = openDatabase(databaseUrl, 2);
  const encryptionKey = randomBytes(32);
  const processes: Supervised[] = [];
  const cleanUp = async () => {
    await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
    await database.close().catch(() => undefined);
    await sink.close();
    await dns.close();
    await redis.stop();
    await pg.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

  try {
    const provisioned = await provisionBenchSender(THIS_BUILD, database.db, encryptionKey, { domain: DOMAIN, dns });
    dns.set(SINK_DOMAIN, [{ type: 'MX', exchange: `mx.${SINK_DOMAIN}`, priority: 10 }]);
    dns.set(`mx.${SINK_DOMAIN}`, [{ type: 'A', address: '127.0.0.2' }]);

    const apiPorts = await Promise.all(Array.from({ length: N_API }, () => freePort()));
    const apis = apiPorts.map(
      (port, i) =>
        new Supervised(
          `api ${i + 1}`,
          () => startApi(config, databaseUrl, { encryptionKey, port, redisPrefix: 'chaos', readyTimeoutMs: 30_000, outputFd }),
          log,
        ),
    );
    const daemons = Array.from(
      { length: N_DAEMONS },
      (_, i) =>
        new Supervised(
          `daemon ${i + 1}`,
          async () => {
            const journalFile = path.join(workDir, `daemon-${i + 1}-journal.jsonl`);
            const child = startWorker(config, databaseUrl, encryptionKey, { redisPrefix: 'chaos', dnsServer: dns.address, smtpPort, outputFd, journalFile });
            const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
            return { exited, stop: () => endProcess(child, 'SIGTERM'), kill: () => endProcess(child, 'SIGKILL') };
          },
          log,
        ),
    );
    processes.push(...apis, ...daemons);
    await Promise.all(processes.map((p) => p.up()));
    log('all processes up; load starts');

    const loadStarted = Date.now();
    const faults: FaultDone[] = [];
    const next = { 'kill-daemon': 0, 'kill-api': 0 };
    const killNext = async (kind: 'kill-daemon' | 'kill-api') => {
      const group = kind === 'kill-daemon' ? daemons : apis;
      const target = group[next[kind]++ % group.length]!;
      await target.kill9(RESTART_AFTER_MS);
      return `kill -9 ${target.name}, restarted ${RESTART_AFTER_MS / 1000}s later`;
    };
    /** Each fault, carried out; resolves with what it did. */
    const actions: Record<FaultKind, () => Promise<string>> = {
      'kill-daemon': () => killNext('kill-daemon'),
      'kill-api': () => killNext('kill-api'),
      'redis-flushall': () => redis.flushAll().then(() => 'Redis FLUSHALL'),
      'redis-restart': () => redis.restart(REDIS_DOWN_MS).then(() => `Redis killed, restarted empty ${REDIS_DOWN_MS / 1000}s later`),
      'pg-restart': () => pg.crashRestart().then(() => 'PostgreSQL pg_ctl restart -m immediate'),
      'pg-failover': () => pg.failover().then(() => 'PostgreSQL primary stopped -m immediate, standby promoted, a new standby made'),
      'redis-failover': () => redis.failover().then(() => 'Redis master killed, replica promoted by the Sentinels, old master back as replica'),
    };
    const runFaults = async () => {
      for (const fault of TIMELINE) {
        await sleep(loadStarted + fault.atMs - Date.now());
        const at = Date.now();
        const when = `fault at +${((at - loadStarted) / 1000).toFixed(1)}s`;
        try {
          const what = await actions[fault.kind]();
          log(`${when}: ${what} (took ${((Date.now() - at) / 1000).toFixed(1)}s)`);
        } catch (error) {
          log(`${when}: ${fault.kind} FAILED: ${(error as Error).message}`);
        }
        faults.push({ kind: fault.kind, at, endedAt: Date.now() });
      }
    };
    const [sent] = await Promise.all([
      sendUnderChaos({
        apis: apiPorts.map((port) => `http://127.0.0.1:${port}`),
        sendingKey: provisioned.sendingKey,
        rate: RATE,
        messages: MESSAGES,
        timeoutMs: REQUEST_TIMEOUT_MS,
        body: (n) => ({ from: `orders@${DOMAIN}`, to: [`customer${n}@${SINK_DOMAIN}`], subject: `Chaos message ${n}`, content: { plain: `Message ${n} of the chaos run.` } }),
      }),
      runFaults(),
    ]);
    log(`load done: ${sent.acceptedIds.length} accepted, ${sent.refused} refused, ${sent.abandoned} abandoned; answers ${JSON.stringify(sent.answers)}`);

    const lastFault = Math.max(loadStarted, ...faults.map((f) => f.at));
    const accepted = sent.acceptedIds;
    const deliveryStatuses = async () => {
      const rows = await database.db`select status, count(*)::int as n from deliveries where email_id = any(${accepted}::text[]) group by status`;
      return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
    };
    let statuses: Record<string, number> = {};
    let drainedAt: number | null = null;
    for (;;) {
      statuses = await deliveryStatuses().catch(() => statuses);
      const atSink = new Set(sink.messages.map((m) => emailIdOf(messageIdOf(m))));
      const owed = Object.entries(statuses).filter(([status]) => !isTerminal(status as DeliveryStatus)).reduce((t, [, n]) => t + n, 0);
      const missing = accepted.filter((id) => !atSink.has(id)).length;
      if (owed === 0 && missing === 0) {
        drainedAt = Date.now();
        break;
      }
      if (Date.now() - lastFault > DRAIN_CAP_MS) break;
      log(`draining: ${owed} deliveries owed, ${missing} accepted messages not at the sink (${JSON.stringify(statuses)})`);
      await sleep(5_000);
    }
    const stored = await database.db`select id from emails where account_id = ${provisioned.accountId}`;
    const attempts = await database.db`
      select outcome || '/' || coalesce(cause->>'code', 'none') as kind, count(*)::int as n
      from attempts where email_id = any(${accepted}::text[]) group by 1 order by 2 desc`;
    const summary = audit({
      messages: MESSAGES,
      acceptedIds: accepted,
      storedEmailIds: stored.map((r) => r.id as string),
      refused: sent.refused,
      abandoned: sent.abandoned,
      answers: sent.answers,
      serverErrorSamples: sent.serverErrorSamples,
      receipts: sink.messages.map((m) => ({ emailId: emailIdOf(messageIdOf(m)), at: m.at })),
      faults,
      daemonCrashes: daemons.flatMap((d) => d.unexpectedExits),
      deliveryStatuses: statuses,
      attempts: Object.fromEntries(attempts.map((r) => [r.kind as string, r.n as number])),
      drainedAt,
      originAt: loadStarted,
    });
    // A graceful stop (SIGTERM) is part of the audit: a process that cannot finish its work never stops.
    await Promise.all(processes.map((p) => p.stop()));
    const restarts = Object.fromEntries(
      processes.map((p) => [p.name, { unexpected_exits: p.unexpectedExits.length, failed_starts: p.failedStarts, stop_timed_out: p.stopTimedOut }]),
    );
    console.log(JSON.stringify({ ...summary, targets_met: targetsMet(summary, TARGETS), processes: restarts }, null, 2));
    await report(summary, restarts);
  } finally {
    await cleanUp();
  }
}

/** The email id a Message-ID of the service names (`<em_…@domain>`). */
function emailIdOf(messageId: string | undefined): string | null {
  return /^<(em_[^@>]+)@/.exec(messageId ?? '')?.[1] ?? null;
}

function commit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: path.dirname(RELIABILITY_FILE), encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

const startLoad = loadavg()[0]!.toFixed(2);

type ProcessFigures = Record<string, { unexpected_exits: number; failed_starts: number; stop_timed_out: boolean }>;

async function report(summary: AuditSummary, restarts: ProcessFigures) {
  const met = targetsMet(summary, TARGETS);
  const yes = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const date = new Date().toISOString();
  await writeMarkdownSection(
    RELIABILITY_FILE,
    '# Reliability',
    'Latest run',
    `${date}, commit ${commit()}; ${cpus().length} CPUs, Node ${process.version}, load average ${startLoad} at the start.
Settings: ${N_API} APIs, ${N_DAEMONS} daemons (default settings), ${MESSAGES} messages of one recipient at ${RATE}/s (${(LOAD_MS / 1000).toFixed(0)} s of load),
killed processes restarted ${RESTART_AFTER_MS / 1000} s later, Redis away ${REDIS_DOWN_MS / 1000} s on a restart, drain awaited up to ${DRAIN_CAP_MS / 1000} s.

Fault timeline (seconds after the load started), each with the extra copies put down to it (the copies at the sink
whose copy before, the one that should have been the only one, came after that fault and before the next):
${summary.duplicates_by_fault.map((f) => `${f.at_s} ${f.kind} (${f.copies})`).join(', ')}.

| figure | value |
|---|---|
| messages sent (one Idempotency-Key each) | ${summary.messages} |
| accepted (a 2xx) | ${summary.accepted} |
| refused (final 4xx) / abandoned by the client | ${summary.refused} / ${summary.abandoned} |
| delivered (at the sink, by email id) | ${summary.delivered} |
| undelivered | ${summary.undelivered} |
| duplicates (extra copies) | ${summary.duplicates}${summary.duplicate_samples.length > 0 ? ` (e.g. copies at ${summary.duplicate_samples.map((d) => d.copies_at_s.join(' and ') + ' s').join('; ')})` : ''} |
| duplicates by kind of fault before the copy repeated | ${Object.entries(summary.duplicates_by_kind).map(([kind, n]) => `${kind}: ${n}`).join(', ')}; before any fault: ${summary.duplicates_before_any_fault} |
| daemon deaths (kills and crashes) / copies put down to them, per death | ${summary.daemon_deaths} / ${summary.duplicates_per_daemon_death === null ? 'n/a' : summary.duplicates_per_daemon_death.toFixed(1)} |
| after a daemon's death, its deliveries sent again within (median / max) | ${summary.takeover_after_daemon_death_s ? `${summary.takeover_after_daemon_death_s.median.toFixed(1)} s / ${summary.takeover_after_daemon_death_s.max.toFixed(1)} s` : 'n/a'} |
| emails stored that no 2xx named / unknown copies at the sink | ${summary.stored_not_accepted} / ${summary.unknown_at_sinks} |
| 5xx answers other than 503 | ${summary.server_errors_other_than_503}${summary.server_error_samples.length > 0 ? ` (samples: ${summary.server_error_samples.map((s) => `\`${s}\``).join('; ')})` : ''} |
| answers by status | ${Object.entries(summary.answers).map(([k, v]) => `${k}: ${v}`).join(', ')} |
| attempts recorded, by outcome/cause | ${Object.entries(summary.attempts).map(([k, v]) => `${k}: ${v}`).join(', ')} |
| deliveries by status at the end | ${Object.entries(summary.delivery_statuses).map(([k, v]) => `${k}: ${v}`).join(', ')} |
| drained after the last fault | ${summary.drain_seconds === null ? `not within ${DRAIN_CAP_MS / 1000} s` : `${summary.drain_seconds.toFixed(1)} s`} |
| processes that exited by themselves / failed starts | ${Object.entries(restarts).map(([name, r]) => `${name}: ${r.unexpected_exits}/${r.failed_starts}`).join(', ')} |
| processes that did not stop on SIGTERM at the end | ${Object.entries(restarts).filter(([, r]) => r.stop_timed_out).map(([name]) => name).join(', ') || 'none'} |

Targets: 0 undelivered: ${yes(met.undelivered)}; 0 5xx other than 503: ${yes(met.server_errors)}; drained within ${TARGETS.drainSeconds} s of the last fault: ${yes(met.drain)}; at most ${TARGETS.duplicatesPerKill} copies per daemon death: ${yes(met.duplicates_per_kill)}; no copy from a PostgreSQL or Redis failover: ${yes(met.failover_duplicates)}.`,
  );
  console.log('written to RELIABILITY.md ("Latest run")');
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
