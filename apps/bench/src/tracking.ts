import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { loadConfig } from '@mailer/config';
import { daysSinceEpoch, signLinkToken } from '@mailer/domain';
import { clearRedisPrefix, prepareBenchApi } from './bench-environment';
import { provisionBenchSender, THIS_BUILD } from './bench-provisioning';
import { writeBenchmarkSection } from './benchmarks-file';
import { median } from './median';
import { measureInsertCeiling } from './pgbench';
import { loadPostEmails } from './post-emails-load';

/**
 * The tracking endpoints (docs/api-decisions.md, "Opens and clicks") against intake: GET /c/{token}
 * (a click: look-up, `clicked` event, redirect) and GET /o/{token} (an open: the same, answering
 * the pixel), each at 50 connections over tokens of TOKENS tracked deliveries, beside POST
 * /v1/emails and pgbench, alternating over ROUNDS rounds in one run; medians reported.
 * `--cpu-prof` writes a CPU profile of the API process to bench-results/.
 */
const CONNECTIONS = 50;
const TOKENS = 1_000;
const WARMUP_SECONDS = 3;
const ROUNDS = 3;
const SECONDS = 10;
const PGBENCH_CLIENTS = 20;
/** A mail client's fetch should cost no more than an intake request: at least as many per second. */
const TARGET_RATIO = 1;

const trackedMessage = (i: number) =>
  JSON.stringify({
    from: 'orders@bench.test',
    to: [`reader${i}@example.test`],
    subject: 'Your order has shipped',
    content: { html: '<p>Your parcel is on its way: <a href="https://shop.bench.test/orders/12345?from=mail">follow it</a>.</p>' },
    track: { opens: true, clicks: true },
  });

async function main() {
  const config = loadConfig();
  const { databaseUrl, api, database } = await prepareBenchApi(config, { cpuProfile: process.argv.includes('--cpu-prof') });
  const rounds: { clicks: autocannon.Result; opens: autocannon.Result; intake: autocannon.Result; ceiling: number }[] = [];
  try {
    const { sendingKey } = await provisionBenchSender(THIS_BUILD, database.db, api.encryptionKey);
    const authorization = `Bearer ${sendingKey}`;
    console.log(`sending ${TOKENS} tracked messages…`);
    for (let i = 0; i < TOKENS; i++) {
      const sent = await fetch(`${api.baseUrl}/v1/emails`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: trackedMessage(i),
      });
      if (sent.status !== 202) throw new Error(`POST /v1/emails answered ${sent.status}: ${await sent.text()}`);
    }
    // As the daemon leaves a delivery a remote server accepted (no daemon runs: nothing is sent);
    // each delivery's tokens as its copy would carry them.
    const deliveries = await database.db`update deliveries set status = 'accepted' returning id`;
    const issuedDay = daysSinceEpoch(new Date());
    const token = (deliveryId: string, use: 'open' | 'click') => signLinkToken({ deliveryId, use, link: 0, issuedDay }, api.encryptionKey);
    const clickPaths = deliveries.map((d) => `/c/${token(d.id as string, 'click')}`);
    const openPaths = deliveries.map((d) => `/o/${token(d.id as string, 'open')}`);
    const probe = await fetch(`${api.baseUrl}${clickPaths[0]}`, { redirect: 'manual' });
    if (probe.status !== 302) throw new Error(`a tracked link answered ${probe.status}, not 302`);

    const cycling = (paths: string[], duration: number) => {
      let next = 0;
      return autocannon({
        url: api.baseUrl,
        connections: CONNECTIONS,
        duration,
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
      });
    };
    const intake = (seconds: number) => loadPostEmails({ url: api.baseUrl, sendingKey, body: trackedMessage(0), connections: CONNECTIONS, seconds });
    console.log(`warming up for ${WARMUP_SECONDS} s…`);
    await cycling(clickPaths, WARMUP_SECONDS);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}: clicks, opens, POST /v1/emails (${CONNECTIONS} connections), pgbench (${PGBENCH_CLIENTS} clients), ${SECONDS} s each…`);
      const clicks = await cycling(clickPaths, SECONDS);
      const opens = await cycling(openPaths, SECONDS);
      const posted = await intake(SECONDS);
      const ceiling = await measureInsertCeiling({ databaseUrl, clients: PGBENCH_CLIENTS, seconds: SECONDS });
      rounds.push({ clicks, opens, intake: posted, ceiling });
      console.log(
        `  clicks ${clicks.requests.average.toFixed(0)}/s (p99 ${clicks.latency.p99} ms), opens ${opens.requests.average.toFixed(0)}/s, ` +
          `intake ${posted.requests.average.toFixed(0)} req/s, pgbench ${ceiling.toFixed(0)} tx/s`,
      );
    }
  } finally {
    await database.close();
    await api.stop();
  }
  await clearRedisPrefix(config);

  const m = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const clickRatio = m((r) => r.clicks.requests.average / r.intake.requests.average);
  const openRatio = m((r) => r.opens.requests.average / r.intake.requests.average);
  // A click answers 302, an open 200, intake 202: anything else, or no answer, is counted.
  const unexpected = rounds.reduce(
    (sum, r) => sum + r.clicks.errors + r.opens.errors + r.intake.errors + (r.clicks.requests.total - r.clicks['3xx']) + r.opens.non2xx + r.intake.non2xx,
    0,
  );
  const answered = rounds.reduce((sum, r) => ({ clicks: sum.clicks + r.clicks.requests.total, opens: sum.opens + r.opens.requests.total }), { clicks: 0, opens: 0 });
  const roundRows = rounds
    .map(
      (r, i) =>
        `| ${i + 1} | ${r.clicks.requests.average.toFixed(0)}/s (${r.clicks.latency.p50} / ${r.clicks.latency.p99} ms) | ${r.opens.requests.average.toFixed(0)}/s (${r.opens.latency.p50} / ${r.opens.latency.p99} ms) | ` +
        `${r.intake.requests.average.toFixed(0)} req/s (${r.intake.latency.p50} / ${r.intake.latency.p99} ms) | ${r.ceiling.toFixed(0)} tx/s | ` +
        `${(r.clicks.requests.average / r.intake.requests.average).toFixed(2)} |`,
    )
    .join('\n');
  console.log(`clicks: ${clickRatio.toFixed(2)}x intake, opens: ${openRatio.toFixed(2)}x intake (medians); target >= ${TARGET_RATIO}: ${clickRatio >= TARGET_RATIO && openRatio >= TARGET_RATIO ? 'met' : 'MISSED'}`);

  await writeBenchmarkSection(
    'Opens and clicks',
    `Run with \`npm run bench:tracking\` (${new Date().toISOString()}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}, Node ${process.version}).
The API runs as built against a fresh database, with no daemon. ${TOKENS} tracked messages (one recipient, an HTML part with one link,
\`track: {opens: true, clicks: true}\`) are sent through \`POST /v1/emails\` and their deliveries marked accepted, as the daemon
leaves them. autocannon then drives, ${CONNECTIONS} connections, ${SECONDS} s each, after a ${WARMUP_SECONDS} s warm-up: \`GET /c/{token}\`
over the ${TOKENS} deliveries' click tokens (each a look-up, a \`clicked\` event in one transaction, and a 302), \`GET /o/{token}\` over
their open tokens (the same, answering the pixel), and \`POST /v1/emails\` (the intake ceiling: a tracked one-recipient message),
then pgbench on the same cluster (one ~2 KB insert per synchronous transaction, ${PGBENCH_CLIENTS} clients). The four alternate over
${ROUNDS} rounds; ratios are per round, their medians reported.

| round | clicks (p50 / p99) | opens (p50 / p99) | intake (p50 / p99) | pgbench | clicks / intake |
|---|---|---|---|---|---|
${roundRows}

| measure | value |
|---|---|
| clicks per second (median) | ${m((r) => r.clicks.requests.average).toFixed(0)} |
| opens per second (median) | ${m((r) => r.opens.requests.average).toFixed(0)} |
| intake (median) | ${m((r) => r.intake.requests.average).toFixed(0)} req/s |
| clicks / intake, opens / intake (medians) | ${clickRatio.toFixed(2)}, ${openRatio.toFixed(2)} |
| clicks / pgbench (median) | ${m((r) => r.clicks.requests.average / r.ceiling).toFixed(2)} |
| answers | ${answered.clicks} clicks, ${answered.opens} opens; ${unexpected} not 302 / 200 / 202 or errors |
| target (each at least intake's rate, >= ${TARGET_RATIO}x) | ${clickRatio >= TARGET_RATIO && openRatio >= TARGET_RATIO ? 'met' : 'missed'} |`,
  );
  console.log('written to BENCHMARKS.md (Opens and clicks)');
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
