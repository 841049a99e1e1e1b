import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { loadConfig } from '@mailer/config';
import { clearRedisPrefix, prepareBenchApi } from './bench-environment';
import { provisionBenchSender, THIS_BUILD } from './bench-provisioning';
import { writeBenchmarkSection } from './benchmarks-file';
import { median } from './median';
import { measureInsertCeiling } from './pgbench';
import { loadPostEmails } from './post-emails-load';

/**
 * Intake throughput: POST /v1/emails against the production build at 50 connections,
 * compared with the raw PostgreSQL ceiling (pgbench, one 2 KB insert per synchronous
 * transaction, 20 clients) measured in the same run. The two alternate over ROUNDS rounds
 * and the medians are reported: this machine's speed drifts by a fifth from one minute to
 * the next, and a ratio is only fair between neighbours. `--cpu-prof` writes a CPU profile
 * of the API process to bench-results/.
 */
const CONNECTIONS = 50;
const WARMUP_SECONDS = 3;
const ROUNDS = 3;
const SECONDS = 10;
const FLOOR_SECONDS = 5;
const PGBENCH_CLIENTS = 20;
const TARGET = { ratio: 0.25, p99Ms: 100 };
const GOAL = { ratio: 0.4, p99Ms: 50 };


function messageBody(): string {
  const paragraph = 'Thank you for your order. Your receipt is attached below; reply to this message if anything looks wrong. ';
  return JSON.stringify({
    from: 'Bench Shop <orders@bench.test>',
    to: ['customer@example.test'],
    subject: 'Your order #12345 has shipped',
    content: { plain: paragraph.repeat(8), html: `<html><body><p>${paragraph.repeat(8)}</p></body></html>` },
  });
}

async function main() {
  const config = loadConfig();
  const { databaseUrl, api, database } = await prepareBenchApi(config, { cpuProfile: process.argv.includes('--cpu-prof') });
  const rounds: { intake: autocannon.Result; ceiling: number; ratio: number }[] = [];
  let floor: autocannon.Result;
  try {
    const provisioned = await provisionBenchSender(THIS_BUILD, database.db, api.encryptionKey);

    const body = messageBody();
    const run = (seconds: number) => loadPostEmails({ url: api.baseUrl, sendingKey: provisioned.sendingKey, body, connections: CONNECTIONS, seconds });
    console.log(`warming up for ${WARMUP_SECONDS} s…`);
    await run(WARMUP_SECONDS);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}: POST /v1/emails, ${CONNECTIONS} connections, ${SECONDS} s, then pgbench, ${PGBENCH_CLIENTS} clients, ${SECONDS} s…`);
      const intake = await run(SECONDS);
      const ceiling = await measureInsertCeiling({ databaseUrl, clients: PGBENCH_CLIENTS, seconds: SECONDS });
      rounds.push({ intake, ceiling, ratio: intake.requests.average / ceiling });
      console.log(`  ${intake.requests.average.toFixed(0)} req/s (p99 ${intake.latency.p99} ms) against ${ceiling.toFixed(0)} tx/s: ${(intake.requests.average / ceiling).toFixed(2)}`);
    }
    console.log(`GET /healthz (the HTTP stack alone), ${CONNECTIONS} connections, ${FLOOR_SECONDS} s…`);
    floor = await autocannon({ url: api.baseUrl, connections: CONNECTIONS, duration: FLOOR_SECONDS, requests: [{ method: 'GET', path: '/healthz' }] });
  } finally {
    await database.close();
    await api.stop();
  }
  await clearRedisPrefix(config);

  const rps = median(rounds.map((r) => r.intake.requests.average));
  const ratio = median(rounds.map((r) => r.ratio));
  const ceiling = median(rounds.map((r) => r.ceiling));
  const p50 = median(rounds.map((r) => r.intake.latency.p50));
  const p99 = median(rounds.map((r) => r.intake.latency.p99));
  const answers = rounds.reduce((sum, r) => ({ accepted: sum.accepted + r.intake['2xx'], other: sum.other + r.intake.non2xx, errors: sum.errors + r.intake.errors }), { accepted: 0, other: 0, errors: 0 });
  const verdict = (level: { ratio: number; p99Ms: number }) => ratio >= level.ratio && p99 <= level.p99Ms;
  const lines = [
    `POST /v1/emails, median of ${ROUNDS} rounds: ${rps.toFixed(0)} req/s (${answers.accepted} accepted, ${answers.other} other answers, ${answers.errors} errors), latency p50 ${p50} ms, p99 ${p99} ms`,
    `PostgreSQL ceiling (pgbench, 2 KB insert per synchronous transaction), median: ${ceiling.toFixed(0)} tx/s`,
    `HTTP stack alone (GET /healthz, no database): ${floor.requests.average.toFixed(0)} req/s`,
    `ratio (median of rounds): ${ratio.toFixed(2)} of the ceiling; target (>= ${TARGET.ratio}, p99 <= ${TARGET.p99Ms} ms) ${verdict(TARGET) ? 'met' : 'MISSED'}, goal (>= ${GOAL.ratio}, p99 <= ${GOAL.p99Ms} ms) ${verdict(GOAL) ? 'met' : 'missed'}`,
  ];
  for (const line of lines) console.log(line);
  const roundRows = rounds
    .map((r, i) => `| ${i + 1} | ${r.intake.requests.average.toFixed(0)} req/s | ${r.intake.latency.p50} / ${r.intake.latency.p99} ms | ${r.ceiling.toFixed(0)} tx/s | ${r.ratio.toFixed(2)} |`)
    .join('\n');

  await writeBenchmarkSection(
    'Intake',
    `Run with \`npm run bench:intake\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}).
The API runs as built (\`NODE_ENV=production\`, \`LOG_LEVEL=warn\`, one process, default pool) against a fresh \`${'mailer_bench'}\`
database; autocannon drives \`POST /v1/emails\` from the same machine with ${CONNECTIONS} connections, after a ${WARMUP_SECONDS} s
warm-up: one recipient, a ~2 KB body, a new Idempotency-Key per request, one account with raised limits. The ceiling is
pgbench on the same cluster: one ~2 KB row inserted per transaction, synchronous commit, ${PGBENCH_CLIENTS} clients. The two
alternate, ${SECONDS} s each, over ${ROUNDS} rounds, and the figures are the medians: this machine's speed drifts by a fifth from
one minute to the next, so a ratio is only fair between neighbouring measurements.

| round | intake | p50 / p99 | ceiling | ratio |
|---|---|---|---|---|
${roundRows}

| measure | value |
|---|---|
| intake throughput (median) | ${rps.toFixed(0)} req/s |
| intake latency p50 / p99 (medians) | ${p50} ms / ${p99} ms |
| answers | ${answers.accepted} accepted (202), ${answers.other} other, ${answers.errors} errors |
| PostgreSQL ceiling (median) | ${ceiling.toFixed(0)} tx/s |
| HTTP stack alone (\`GET /healthz\`, ${FLOOR_SECONDS} s) | ${floor.requests.average.toFixed(0)} req/s |
| ratio (median) | ${ratio.toFixed(2)} |
| target (>= ${TARGET.ratio}, p99 <= ${TARGET.p99Ms} ms) | ${verdict(TARGET) ? 'met' : 'missed'} |
| goal (>= ${GOAL.ratio}, p99 <= ${GOAL.p99Ms} ms) | ${verdict(GOAL) ? 'met' : 'missed'} |`,
  );
  console.log('written to BENCHMARKS.md (Intake)');
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
