import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { PassThrough } from 'node:stream';
import { createTransport, type SendMailOptions } from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { loadConfig, type Config } from '@mailer/config';
import { createAccount, setAccountPlan } from '@mailer/operations';
import type { PlanLimits } from '@mailer/domain';
import { createLogger } from '@mailer/logger';
import { waitForRedis } from '@mailer/queue';
import { createTestDatabase, insertReadyDomain, insertSender, testRedisPrefix, type ReadyDomain } from '@mailer/testing';
import { closeContainer, createContainer, type SubmissionDependencies } from '../container';
import { SUBMISSION_USER } from '../authenticate';
import { createSubmissionServer, listenSubmission } from '../submission-server';
import { loadTlsMaterial, type TlsMaterial } from '../tls-material';

/** A plan no submission test reaches unless it means to. */
export const GENEROUS_LIMITS: PlanLimits = { perMinute: 10_000, perHour: 10_000, perDay: 10_000, per30Days: 10_000, maxActive: 10_000 };

export interface SubmittingAccount {
  accountId: string;
  sendingKey: string;
  /** The test sending key (svc_test_…). */
  testSendingKey: string;
  managementKey: string;
  /** An active sender of `domain`. */
  sender: string;
  domain: ReadyDomain;
}

/** What the listener answered: 250 with the message taken, or the refusal, with its reply line. */
export interface SubmitResult {
  accepted: boolean;
  responseCode: number | undefined;
  response: string;
}

/** A raw SMTP session: write anything, read the listener's replies one by one. */
export interface RawSession {
  /** The next whole reply (every line of a multi-line one), as sent. */
  reply(): Promise<string>;
  write(data: string | Buffer): void;
  /** Writes a command line (CRLF added) and reads its reply. */
  command(line: string): Promise<string>;
  close(): void;
}

export interface SubmissionHarness {
  deps: SubmissionDependencies;
  config: Config;
  /** The certificate both ports present (self-signed, kept in SUBMISSION_TLS_DIR). */
  tls: TlsMaterial;
  /** The listener's log lines so far (errors only, unless `env` sets LOG_LEVEL). */
  logs: string[];
  starttlsPort: number;
  tlsPort: number;
  /** An account with a ready domain (`domain`, default acme.test), a sender `hello@<domain>` and GENEROUS_LIMITS unless `limits`. */
  account(options?: { domain?: string; limits?: Partial<PlanLimits> }): Promise<SubmittingAccount>;
  /** Sends with nodemailer's SMTP transport logged in with `password`, over STARTTLS or implicit TLS. */
  submit(password: string, message: SendMailOptions, options?: { implicitTls?: boolean; user?: string; localAddress?: string }): Promise<SubmitResult>;
  /** Opens a raw session on the implicit-TLS port (from `localAddress`); resolves after the greeting, which is its first reply. */
  raw(options?: { localAddress?: string }): Promise<{ session: RawSession; greeting: string }>;
  /**
   * Opens a raw session in clear on the STARTTLS port; `upgrade()`, once the client's STARTTLS
   * was answered 220, goes on over TLS on the same connection.
   */
  plain(options?: { localAddress?: string }): Promise<{ session: RawSession; greeting: string; upgrade(): RawSession }>;
  /** A raw session that has said EHLO and logged in with `password`. */
  loggedIn(password: string): Promise<RawSession>;
  close(): Promise<void>;
}

/**
 * Both submission listeners (STARTTLS and implicit TLS, one self-signed certificate) on free
 * loopback ports, against a database and Redis prefix of this test file's own, or those that
 * `env` names (shared with an API or a delivery harness).
 */
export async function startSubmissionHarness(env: Record<string, string> = {}): Promise<SubmissionHarness> {
  // The self-signed pair is kept in a directory of this harness's own, never in the checkout.
  const tlsDir = env.SUBMISSION_TLS_DIR ? undefined : mkdtempSync(join(tmpdir(), 'mailer-submission-tls-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: env.DATABASE_URL ?? (await createTestDatabase()),
    REDIS_PREFIX: testRedisPrefix(),
    SMTP_HELO_NAME: 'submission.mailer.test',
    SUBMISSION_PORT: '0',
    SUBMISSION_TLS_PORT: '0',
    ...(tlsDir ? { SUBMISSION_TLS_DIR: tlsDir } : {}),
    ...env,
  });
  const logs: string[] = [];
  const stream = new PassThrough().on('data', (line: Buffer) => logs.push(line.toString()));
  const logger = createLogger({ level: env.LOG_LEVEL ? config.logLevel : 'error', service: 'submission', stream });
  const deps = createContainer(config, { logger });
  // The listener's Redis connection fails fast while it opens: the AUTH throttle would count in the process.
  await waitForRedis(deps.redis);
  const tls = await loadTlsMaterial(config, logger);
  const servers: SMTPServer[] = [createSubmissionServer(deps, tls, false), createSubmissionServer(deps, tls, true)];
  const [starttlsPort, tlsPort] = [await listenSubmission(servers[0]!, 0, '127.0.0.1'), await listenSubmission(servers[1]!, 0, '127.0.0.1')];
  const sessions = new Set<Socket>();

  const raw: SubmissionHarness['raw'] = ({ localAddress } = {}) =>
    new Promise((resolve, reject) => {
      const socket = tlsConnect({ socket: netConnect({ host: '127.0.0.1', port: tlsPort!, localAddress }), rejectUnauthorized: false });
      sessions.add(socket);
      const session = rawSession(socket);
      socket.once('error', reject);
      session.reply().then((greeting) => resolve({ session, greeting }), reject);
    });

  const plain: SubmissionHarness['plain'] = ({ localAddress } = {}) =>
    new Promise((resolve, reject) => {
      const socket = netConnect({ host: '127.0.0.1', port: starttlsPort!, localAddress });
      sessions.add(socket);
      const session = rawSession(socket);
      const upgrade = () => {
        socket.removeAllListeners('data');
        const secure = tlsConnect({ socket, rejectUnauthorized: false });
        sessions.add(secure);
        return rawSession(secure);
      };
      socket.once('error', reject);
      session.reply().then((greeting) => resolve({ session, greeting, upgrade }), reject);
    });

  return {
    deps,
    config,
    tls,
    logs,
    starttlsPort: starttlsPort!,
    tlsPort: tlsPort!,
    async account(options = {}) {
      const provisioned = await createAccount(deps.db, 'Submission test');
      const accountId = provisioned.account.id;
      const domain = await insertReadyDomain(deps.db, config.encryptionKey, accountId, options.domain ?? 'acme.test');
      const sender = await insertSender(deps.db, accountId, domain.id, `hello@${domain.name}`, { displayName: 'Acme' });
      await setAccountPlan(deps.db, accountId, { ...GENEROUS_LIMITS, ...options.limits });
      return { accountId, sendingKey: provisioned.sending_key, testSendingKey: provisioned.test_sending_key, managementKey: provisioned.management_key, sender: sender.email, domain };
    },
    async submit(password, message, options = {}) {
      const transport = createTransport({
        host: '127.0.0.1',
        port: options.implicitTls ? tlsPort : starttlsPort,
        secure: options.implicitTls ?? false,
        requireTLS: !options.implicitTls,
        auth: { user: options.user ?? SUBMISSION_USER, pass: password },
        tls: { rejectUnauthorized: false },
        localAddress: options.localAddress,
      });
      try {
        const info = await transport.sendMail(message);
        return { accepted: true, responseCode: 250, response: info.response };
      } catch (error) {
        const { responseCode, response } = error as { responseCode?: number; response?: string };
        return { accepted: false, responseCode, response: response ?? String(error) };
      } finally {
        transport.close();
      }
    },
    raw,
    plain,
    async loggedIn(password) {
      const { session } = await raw();
      await session.command('EHLO client.test');
      const auth = await session.command(`AUTH PLAIN ${Buffer.from(`\0${SUBMISSION_USER}\0${password}`).toString('base64')}`);
      if (!auth.startsWith('235')) throw new Error(`AUTH refused: ${auth}`);
      return session;
    },
    async close() {
      for (const socket of sessions) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      await closeContainer(deps);
      if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
    },
  };
}

function rawSession(socket: Socket | TLSSocket): RawSession {
  let buffered = '';
  const replies: string[] = [];
  const waiting: { resolve: (reply: string) => void; reject: (error: Error) => void }[] = [];
  socket.once('close', () => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error('the listener closed the connection'));
  });
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    // A reply ends with a line whose code is followed by a space (RFC 5321 4.2.1).
    for (let match = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffered); match; match = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffered)) {
      const end = match.index + match[0].length;
      const reply = buffered.slice(0, end).replace(/^\r\n/, '').trimEnd();
      buffered = buffered.slice(end);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(reply);
      else replies.push(reply);
    }
  });
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      const ready = replies.shift();
      if (ready !== undefined) return resolve(ready);
      if (socket.closed) return reject(new Error('the listener closed the connection'));
      waiting.push({ resolve, reject });
    });
  return {
    reply,
    write: (data) => socket.write(data),
    command(line) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    close: () => socket.end(),
  };
}
