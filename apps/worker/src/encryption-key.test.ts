import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { findDomain, rotateWebhookSecret } from '@mailer/db';
import { DKIM_SEAL_PURPOSE, newWebhookSecret, seal, unseal, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, WEBHOOK_SECRET_SEAL_PURPOSE } from '@mailer/domain';
import { ensureEd25519Key, startDkimRotation } from '@mailer/operations';
import { createTestDatabase, freePort, insertWebhookEndpoint, startTestSmtpServer, waitUntil, type TestSmtpServer } from '@mailer/testing';
import { startWorkerHarness, type SendingSetup, type WorkerHarness } from './testing/worker-harness';
import { verifyDkim } from './testing/verify-dkim';

/**
 * ENCRYPTION_KEY at start and `secrets reseal` (docs/api-decisions.md, "Operations"), with
 * the built daemon and API as operators run them (`npm test` builds them first).
 */
const WORKER_MAIN = path.resolve(__dirname, '..', 'dist', 'main.js');
const API_MAIN = path.resolve(__dirname, '..', '..', 'api', 'dist', 'main.js');
const CLI_MAIN = path.resolve(__dirname, '..', '..', 'cli', 'dist', 'main.js');

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

let h: WorkerHarness;
let setup: SendingSetup;
let peer: TestSmtpServer;
const children: ReturnType<typeof spawn>[] = [];

interface Started {
  output: () => string;
  exited: Promise<number | null>;
  stop: () => void;
}

function start(main: string, env: Record<string, string | undefined>, args: string[] = []): Started {
  const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', ...h.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => output, exited, stop: () => child.kill('SIGTERM') };
}


const apiUp = (port: number) => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);

beforeAll(async () => {
  h = await startWorkerHarness({ ENCRYPTION_KEY: keyA });
  setup = await h.createSendingSetup({ domain: 'sealed.test' });
  h.dns.set('rcpt.test', [{ type: 'A', address: '127.0.0.2' }]);
  peer = await startTestSmtpServer({ host: '127.0.0.2', port: h.smtpPort });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await peer.close();
  await h.close();
});

describe('a configured ENCRYPTION_KEY that cannot open the stored DKIM keys', () => {
  it.each([
    ['the delivery daemon', WORKER_MAIN],
    ['the API', API_MAIN],
  ])('stops %s at start with a message naming ENCRYPTION_KEY', async (_name, main) => {
    const started = start(main, { ENCRYPTION_KEY: keyB, PORT: String(await freePort()) });
    expect(await started.exited).not.toBe(0);
    expect(started.output()).toContain('ENCRYPTION_KEY cannot open the stored DKIM private keys');
    expect(started.output()).not.toContain(keyB);
  });
});

describe('the development key', () => {
  it('is a warning at start naming ENCRYPTION_KEY', async () => {
    // A database of its own: the stored keys of this file are sealed under key A.
    const port = await freePort();
    const started = start(API_MAIN, { DATABASE_URL: await createTestDatabase(), ENCRYPTION_KEY: undefined, PORT: String(port) });
    await waitUntil(() => apiUp(port), 'the API');
    const warning = started
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; message: string })
      .find((line) => line.message.startsWith('ENCRYPTION_KEY is not set'));
    expect(warning?.level).toBe('warn');
    started.stop();
    expect(await started.exited).toBe(0);
  });
});

describe('secrets reseal --from-key-env', () => {
  it('re-seals every stored DKIM key and webhook secret under ENCRYPTION_KEY in one go, and the daemon and the API then start and sign with them', async () => {
    // A webhook endpoint whose secret was rotated holds two sealed secrets.
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const sealedUnderA = (secret: string) => seal(Buffer.from(keyA, 'base64'), WEBHOOK_SECRET_SEAL_PURPOSE, secret);
    // It is a postmark-format one with HTTP Basic credentials, sealed as well.
    const endpoint = await insertWebhookEndpoint(h.deps.db, {
      accountId: setup.accountId,
      url: 'https://hooks.example.com/x',
      events: ['email.accepted'],
      description: null,
      format: 'postmark',
      credentialsSealed: seal(Buffer.from(keyA, 'base64'), WEBHOOK_CREDENTIALS_SEAL_PURPOSE, 'hook:s3cret'),
      secretSealed: sealedUnderA(oldSecret),
      now: new Date(),
    });
    await rotateWebhookSecret(h.deps.db, endpoint, sealedUnderA(newSecret), new Date(Date.now() + 86_400_000), new Date());
    // The domain's Ed25519 key and a pending rotation's two keys are sealed too.
    const domain = await ensureEd25519Key(h.deps.db, h.config.encryptionKey, (await findDomain(h.deps.db, setup.accountId, setup.domain.id))!);
    expect(await startDkimRotation(h.deps.db, h.config.encryptionKey, h.config.returnPath, domain, new Date())).toBe('started');
    // `npm run -s cli -- secrets reseal …` with ENCRYPTION_KEY set to the new key and the old one in OLD_KEY.
    const reseal = async (variable: string) => {
      const cli = start(CLI_MAIN, { ENCRYPTION_KEY: keyB, OLD_KEY: keyA, WRONG_KEY: randomBytes(32).toString('base64') }, [
        'secrets',
        'reseal',
        '--from-key-env',
        variable,
        '--json',
      ]);
      const status = await cli.exited;
      return { status, output: JSON.parse(cli.output()) as Record<string, unknown> };
    };
    expect(await reseal('WRONG_KEY')).toMatchObject({ status: 1, output: { error: { code: 'secret_unreadable' } } });
    expect(await reseal('NO_SUCH_VARIABLE')).toMatchObject({ status: 1, output: { error: { code: 'invalid_key', message: expect.stringContaining('NO_SUCH_VARIABLE') } } });
    expect(await reseal('OLD_KEY')).toEqual({ status: 0, output: { resealed: 7, unchanged: 0 } });
    expect(await reseal('OLD_KEY')).toEqual({ status: 0, output: { resealed: 0, unchanged: 7 } });
    const dkimKeys = await h.deps.db`
      select dkim_private_key_sealed as sealed from domains where id = ${setup.domain.id}
      union all select dkim_ed25519_private_key_sealed from domains where id = ${setup.domain.id}
      union all select private_key_sealed from dkim_keys where domain_id = ${setup.domain.id}`;
    expect(dkimKeys).toHaveLength(4);
    for (const { sealed } of dkimKeys) expect(unseal(Buffer.from(keyB, 'base64'), DKIM_SEAL_PURPOSE, sealed)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const [stored] = await h.deps.db`select secret_sealed, previous_secret_sealed, basic_auth_sealed from webhook_endpoints where id = ${endpoint.id}`;
    const openB = (sealed: string) => unseal(Buffer.from(keyB, 'base64'), WEBHOOK_SECRET_SEAL_PURPOSE, sealed);
    expect([openB(stored!.secret_sealed), openB(stored!.previous_secret_sealed)]).toEqual([newSecret, oldSecret]);
    expect(unseal(Buffer.from(keyB, 'base64'), WEBHOOK_CREDENTIALS_SEAL_PURPOSE, stored!.basic_auth_sealed)).toBe('hook:s3cret');

    const port = await freePort();
    const api = start(API_MAIN, { ENCRYPTION_KEY: keyB, PORT: String(port) });
    await waitUntil(() => apiUp(port), 'the API under the new key');
    const id = await h.queueEmail(setup, { to: ['ann@rcpt.test'] });
    await h.deps.deliveryQueue.enqueue({ emailId: id, dueAt: new Date() });
    const worker = start(WORKER_MAIN, { ENCRYPTION_KEY: keyB });
    await h.waitForStatus(id, ['accepted']);
    const [signature] = await verifyDkim(peer.messages.at(-1)!.raw, h.dns.address);
    expect(signature?.status.result).toBe('pass');
    for (const started of [api, worker]) {
      started.stop();
      expect(await started.exited).toBe(0);
    }
  });
});
