import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setMaxListeners } from 'node:events';
import { PassThrough } from 'node:stream';
import { loadConfig, type Config } from '@mailer/config';
import { createAccount, type Database, type WebhookEndpoint } from '@mailer/db';
import { createLogger } from '@mailer/logger';
import { newWebhookSecret, seal, WEBHOOK_SECRET_SEAL_PURPOSE, type DeliveryCause, type WebhookEventType } from '@mailer/domain';
import {
  createTestDatabase,
  insertQueuedEmail,
  freePort,
  insertReadyDomain,
  insertSender,
  insertWebhookEndpoint,
  startTestDnsServer,
  TEST_CA_FILE,
  testRedisPrefix,
  type QueuedEmailInput,
  type ReadyDomain,
  type TestDnsServer,
} from '@mailer/testing';
import { closeContainer, createContainer, type WorkerDependencies } from '../container';
import { startDaemon, type Daemon } from '../daemon';
import { takeMessage } from '../jobs/deliver-message';
import { readStoredEmail, type StoredEmail } from './stored-email';

export interface SendingSetup {
  accountId: string;
  domain: ReadyDomain;
  sender: { id: string; email: string };
}

export interface WorkerHarness {
  deps: WorkerDependencies;
  config: Config;
  /** The environment the config was parsed from: spawned worker processes get the same. */
  env: Record<string, string>;
  dns: TestDnsServer;
  /** SMTP_PORT: every test MX listens on it, each on its own 127.0.0.x. */
  smtpPort: number;
  logLines(): Record<string, unknown>[];
  /** An account with a ready domain (its DKIM key published in the test DNS) and a sender. */
  createSendingSetup(options?: { domain?: string; sender?: string; displayName?: string | null; policy?: 'require_tls' | 'opportunistic' }): Promise<SendingSetup>;
  /** A webhook endpoint of the account at `url` for `events`, with its signing secret. */
  subscribeWebhooks(accountId: string, url: string, events: WebhookEventType[]): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  /** A queued message as intake writes it; not enqueued. */
  queueEmail(setup: SendingSetup, input: Omit<QueuedEmailInput, 'accountId' | 'senderId' | 'domainId' | 'from'> & { from?: string }): Promise<string>;
  /** Runs one delivery job in this process, as the daemon would. */
  runJob(emailId: string): Promise<void>;
  /** The BullMQ consumer in this process. */
  startDaemon(): Daemon;
  readEmail(emailId: string): Promise<StoredEmail>;
  waitForStatus(emailId: string, statuses: string[], timeoutMs?: number): Promise<StoredEmail>;
  close(): Promise<void>;
}

/**
 * The delivery daemon's composition root against a database and Redis prefix of this
 * test file's own, a test DNS server as DNS_SERVERS, the test CA as SMTP_CA_FILE,
 * private MX addresses allowed and short timeouts. `env` overrides any of it; `now` is the
 * daemon's clock (claims, leases, retry times), for tests that must read it at a chosen time.
 */
export async function startWorkerHarness(env: Record<string, string> = {}, options: { now?: () => Date } = {}): Promise<WorkerHarness> {
  const dns = await startTestDnsServer();
  const smtpPort = await freePort();
  const fullEnv: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    DATABASE_URL: await createTestDatabase(),
    REDIS_PREFIX: testRedisPrefix(),
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT: '2s',
    SMTP_PORT: String(smtpPort),
    SMTP_HELO_NAME: 'worker.mailer.test',
    SMTP_CA_FILE: TEST_CA_FILE,
    ALLOW_PRIVATE_MX: 'true',
    SMTP_CONNECT_TIMEOUT: '2s',
    SMTP_COMMAND_TIMEOUT: '2s',
    SMTP_DATA_TIMEOUT: '3s',
    SMTP_POOL_IDLE: '1s',
    WORKER_CONCURRENCY: '10',
    DELIVERY_LEASE: '1m',
    WORKER_SHUTDOWN_GRACE: '2s',
    WORKER_METRICS_PORT: '0',
    RECONCILE_INTERVAL: '1s',
    // Composed on the test's own thread, from the sources under test: composition threads run the compiled build.
    COMPOSITION_THREADS: '0',
    DELIVERY_JOURNAL_FILE: path.join(mkdtempSync(path.join(tmpdir(), 'mailer-journal-')), 'delivery-journal.jsonl'),
    ...env,
  };
  const config = loadConfig(fullEnv);
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const deps = createContainer(config, { logger: createLogger({ level: 'debug', service: 'worker', stream }), now: options.now });
  const daemons: Daemon[] = [];

  const readEmail = (emailId: string) => readStoredEmail(deps.db, emailId);

  return {
    deps,
    config,
    env: fullEnv,
    dns,
    smtpPort,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    async createSendingSetup(options = {}) {
      const { account } = await createAccount(deps.db, 'Delivery test');
      const domain = await insertReadyDomain(deps.db, config.encryptionKey, account.id, options.domain ?? 'sender.test');
      dns.set(`${domain.dkim.selector}._domainkey.${domain.name}`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
      const sender = await insertSender(deps.db, account.id, domain.id, options.sender ?? `hello@${domain.name}`, {
        displayName: options.displayName === undefined ? 'Acme Support' : options.displayName,
        policy: options.policy ?? 'opportunistic',
      });
      return { accountId: account.id, domain, sender };
    },
    async subscribeWebhooks(accountId, url, events) {
      const secret = newWebhookSecret();
      const secretSealed = seal(config.encryptionKey, WEBHOOK_SECRET_SEAL_PURPOSE, secret);
      const endpoint = await insertWebhookEndpoint(deps.db, { accountId, url, events, description: null, secretSealed, now: new Date() });
      return { endpoint, secret };
    },
    async queueEmail(setup, input) {
      const queued = await insertQueuedEmail(deps.db, {
        ...input,
        accountId: setup.accountId,
        senderId: setup.sender.id,
        domainId: setup.domain.id,
        from: input.from ?? setup.sender.email,
      });
      return queued.id;
    },
    runJob: (emailId) => deliverMessage(deps, emailId),
    startDaemon() {
      // One process runs one daemon; here a daemon stopped earlier may have used up its shutdown grace, and the next starts afresh.
      if (deps.shutdown.signal.aborted) {
        deps.shutdown = new AbortController();
        setMaxListeners(0, deps.shutdown.signal);
      }
      const daemon = startDaemon(deps);
      daemons.push(daemon);
      return daemon;
    },
    readEmail,
    async waitForStatus(emailId, statuses, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const stored = await readEmail(emailId);
        if (statuses.includes(stored.email.status)) return stored;
        if (Date.now() > deadline) throw new Error(`message ${emailId} is ${stored.email.status}, expected ${statuses.join('|')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      for (const daemon of daemons) await daemon.stop();
      await deps.deliveryQueue.queue.obliterate({ force: true }).catch(() => undefined);
      await closeContainer(deps);
      await dns.close();
    },
  };
}

/**
 * Makes the messages' deliveries deferred after one attempt, owed again at `nextAttemptAt`
 * (only the delivery to `recipient` when given), as a retry finds them. Counters are left
 * as they are.
 */
export function deferDeliveries(db: Database, emailIds: string[], nextAttemptAt: Date, options: { recipient?: string; cause?: DeliveryCause } = {}) {
  const onlyRecipient = options.recipient === undefined ? db`` : db`and recipient = ${options.recipient}`;
  // db.json takes a JSON value's type, which an interface is not: hence the copy.
  const cause = options.cause ? db.json({ ...options.cause }) : null;
  return db`
    update deliveries
       set status = ${'deferred'}, attempt_count = ${1}, next_attempt_at = ${nextAttemptAt}, cause = ${cause}
     where email_id = any(${emailIds}::text[]) ${onlyRecipient}`;
}

/** A message from claim to its last record, in this process, as a job's claim would take it. */
export async function deliverMessage(deps: WorkerDependencies, emailId: string): Promise<void> {
  await (await takeMessage(deps, emailId, deps.logger.child({ email_id: emailId }))).done;
}
