import { spawn, type ChildProcess } from 'node:child_process';
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
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) return child;
    await sleep(100);
  }
  throw new Error('the API process did not start');
}

describe('the API process (node apps/api/dist/main.js)', () => {
  it('on SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const acme = await sendingAccount(api);
    const port = await freePort();
    const child = await startApiProcess(port);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify(acme.message());
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/emails', headers: { authorization: acme.auth, 'idempotency-key': 'shutdown-1', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });

    const { status, body: answered } = await answer;
    expect(status).toBe(202);
    expect(JSON.parse(answered)).toMatchObject({ id: expect.stringMatching(/^em_/), status: 'queued' });
    await sleep(100);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(await exited).toBe(0);
  });
});
