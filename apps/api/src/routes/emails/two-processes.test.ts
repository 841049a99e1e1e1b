import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { freePort } from '@mailer/testing';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount } from '../../testing/sending-account';

// The built API, as `npm run start:api` runs it (`npm test` builds first).
const MAIN = path.resolve(__dirname, '../../../dist/main.js');

let api: TestApi;
let acme: SendingAccount;
const children: ChildProcess[] = [];
const bases: string[] = [];

async function startProcess(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: api.config.databaseUrl,
      DATABASE_POOL_SIZE: '5',
      REDIS_PREFIX: api.config.redisPrefix,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const up = await request(base).get('/healthz').then((r) => r.status === 200, () => false);
    if (up) return base;
  }
  throw new Error(`the API process on port ${port} did not start`);
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npx tsc -b)`);
  api = await startTestApi();
  acme = await sendingAccount(api);
  bases.push(...(await Promise.all([startProcess(), startProcess()])));
}, 60_000);
afterAll(async () => {
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : (child.once('exit', resolve), child.kill('SIGTERM'))))));
  await api.close();
});

const post = (base: string, body: unknown, key = randomUUID()) =>
  request(base).post('/v1/emails').set('Authorization', acme.auth).set('Idempotency-Key', key).send(body as object);

describe('two API processes on one database', () => {
  it('never exceed the plan together', async () => {
    // 60 one-recipient requests, half to each process, against the free plan's 30 per minute.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(bases[i % 2]!, acme.message({ to: [`r${i}@example.test`] }))),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(30);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(30);
    const [{ used }] = (await api.deps.db`
      select coalesce(sum(recipients), 0)::int as used from recipient_usage where account_id = ${acme.accountId}`) as unknown as [{ used: number }];
    expect(used).toBe(30);
    expect(await api.deps.db`select id from emails where account_id = ${acme.accountId}`).toHaveLength(30);
  });

  it('create one message for one Idempotency-Key sent to both at once', async () => {
    const other = await sendingAccount(api, { domain: 'other.test' });
    const body = other.message();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request(bases[i % 2]!).post('/v1/emails').set('Authorization', other.auth).set('Idempotency-Key', 'shared-across-processes').send(body),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await api.deps.db`select id from emails where account_id = ${other.accountId}`).toHaveLength(1);
  });
});
