import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { freePort } from '@mailer/testing';
import { sendingAccount } from './testing/sending-account';
import { startTestApi, type TestApi } from './testing';

// The built API, as `npm run start:api` runs it (`npm test` builds first).
const MAIN = path.resolve(__dirname, '../dist/main.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

async function startApiProcess(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: api.config.databaseUrl, REDIS_PREFIX: api.config.redisPrefix },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) return child;
  }
  throw new Error('the API process did not start');
}

describe('the API process (node apps/api/dist/main.js)', () => {
  it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const acme = await sendingAccount(api);
    const port = await freePort();
    const child = await startApiProcess(port);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    // A request whose body is still to come when the signal comes: its headers are in (the server's 100 Continue).
    const body = JSON.stringify(acme.message());
    const headers = { authorization: acme.auth, 'idempotency-key': 'shutdown-1', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' };
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/emails', headers });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
    });
    const continued = once(req, 'continue');
    req.flushHeaders();
    await continued;
    child.kill('SIGTERM');
    // It stops accepting connections while the request is still open...
    let refused = false;
    for (const deadline = Date.now() + 10_000; !refused && Date.now() < deadline; await sleep(50)) {
      refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => false, () => true);
    }
    expect(refused).toBe(true);
    // ...and still answers that request, then exits.
    req.end(body);
    const { status, body: answered } = await answer;
    expect(status).toBe(202);
    expect(JSON.parse(answered)).toMatchObject({ id: expect.stringMatching(/^em_/), status: 'queued' });
    expect(await exited).toBe(0);
  });
});
