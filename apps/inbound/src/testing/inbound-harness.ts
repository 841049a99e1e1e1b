import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createTransport, type Transporter } from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { loadConfig } from '@mailer/config';
import { createAccount, createInboundRoute, createWebhookEndpoint, type Database } from '@mailer/operations';
import { parseRoutePattern, returnPathAddress } from '@mailer/domain';
import { createLogger } from '@mailer/logger';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { createContainer, type InboundDependencies } from '../container';
import { loadInboundTls } from '../tls-material';
import { createInboundServer, listenInbound } from '../inbound-server';

/** What the listener answered an SMTP client: 250 with the message taken, or the refusal (and its reply line). */
export interface SendResult {
  accepted: boolean;
  responseCode: number | undefined;
  response?: string;
}

/** A message every delivery of which a remote server accepted, as the daemon leaves it. */
export interface AcceptedMessage {
  accountId: string;
  senderId: string;
  emailId: string;
  deliveries: { id: string; recipient: string; kind: 'to' | 'cc' | 'bcc' }[];
}

export interface InboundHarness {
  deps: InboundDependencies;
  port: number;
  /** An account sending from `domain`, with a webhook endpoint for every report event, and an accepted message to `to` (and `bcc`). */
  acceptedMessage(domain: string, to: string[], bcc?: string[]): Promise<AcceptedMessage>;
  /** An account whose domain receives (ownership and receiving verified), with a route for `pattern` (e.g. `*@in.example`). */
  routed(domain: string, pattern: string): Promise<{ accountId: string; routeId: string }>;
  /** The return-path address of a delivery at `domain`'s return-path host. */
  returnPathOf(deliveryId: string, domain?: string): string;
  /** Opens a bare SMTP connection from `localAddress` (default 127.0.0.1); resolves with the first thing the listener says. */
  connect(localAddress?: string): Promise<{ greeting: string; socket: Socket }>;
  /** Sends a raw message over SMTP with a null envelope sender, as a DSN comes (from `localAddress`, default 127.0.0.1). */
  send(to: string[], raw: string | Buffer, options?: { localAddress?: string }): Promise<SendResult>;
  /** The count of `mailer_inbound_reports_total` for these labels. */
  reportCount(kind: string, result: string): Promise<number>;
  close(): Promise<void>;
}

/** A report as a receiver sent it (testing/fixtures), sent back to `returnPath` instead of the placeholder address it names. */
export const reportFixture = (name: string, returnPath: string): string =>
  readFileSync(path.join(__dirname, 'fixtures', name), 'utf8').replaceAll('b-__TOKEN__@bounces.example.com', returnPath);

/**
 * The inbound listener's composition root on a free loopback port, against a database of
 * this test file's own (or the one `env.DATABASE_URL` names, shared with a delivery harness).
 */
export async function startInboundHarness(env: Record<string, string> = {}): Promise<InboundHarness> {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: env.DATABASE_URL ?? (await createTestDatabase()), INBOUND_PORT: '0', ...env });
  const deps = createContainer(config, { logger: createLogger({ level: 'error', service: 'inbound', stream: new PassThrough().resume() }) });
  const tls = await loadInboundTls(config, deps.logger);
  const server: SMTPServer = createInboundServer(deps, tls);
  const port = await listenInbound(server, 0, '127.0.0.1');
  const transports = new Map<string, Transporter>();
  const transport = (localAddress: string) => {
    if (!transports.has(localAddress)) transports.set(localAddress, createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false, localAddress }));
    return transports.get(localAddress)!;
  };
  return {
    deps,
    port,
    async routed(domainName, pattern) {
      const { account } = await createAccount(deps.db, 'Receiving test');
      const domain = await insertReadyDomain(deps.db, config.encryptionKey, account.id, domainName);
      await deps.db`update domains set receiving_enabled = true, receiving_status = 'verified' where id = ${domain.id}`;
      const created = await createInboundRoute(deps.db, { accountId: account.id, pattern: parseRoutePattern(pattern)!, webhookId: null, enabled: true, now: new Date() });
      if (created.kind !== 'created') throw new Error(`no route for ${pattern}: ${created.kind}`);
      return { accountId: account.id, routeId: created.route.id };
    },
    acceptedMessage: (domain, to, bcc = []) => insertAcceptedMessage(deps.db, config.encryptionKey, domain, to, bcc),
    returnPathOf: (deliveryId, domain = 'example.com') => returnPathAddress(deps.returnPathKey, deliveryId, domain, config.returnPath.label),
    connect: (localAddress = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, localAddress });
        socket.once('error', reject);
        socket.once('data', (chunk: Buffer) => resolve({ greeting: chunk.toString(), socket }));
      }),
    async send(to, raw, options = {}) {
      try {
        await transport(options.localAddress ?? '127.0.0.1').sendMail({ envelope: { from: '', to }, raw });
        return { accepted: true, responseCode: 250 };
      } catch (error) {
        const { responseCode, response } = error as { responseCode?: number; response?: string };
        return { accepted: false, responseCode, response };
      }
    },
    async reportCount(kind, result) {
      const metric = await deps.metrics.reports.get();
      return metric.values.find((v) => v.labels.kind === kind && v.labels.result === result)?.value ?? 0;
    },
    async close() {
      for (const t of transports.values()) t.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.database.close();
    },
  };
}

async function insertAcceptedMessage(db: Database, encryptionKey: Buffer, domainName: string, to: string[], bcc: string[]): Promise<AcceptedMessage> {
  const { account } = await createAccount(db, 'Inbound test');
  const domain = await insertReadyDomain(db, encryptionKey, account.id, domainName);
  const sender = await insertSender(db, account.id, domain.id, `news@${domainName}`);
  await createWebhookEndpoint(db, {
    accountId: account.id,
    url: 'https://hooks.example.net/mailer',
    events: ['email.bounced', 'email.complained', 'email.deferred'],
    description: null,
    secretSealed: 'unused',
    now: new Date(),
  });
  const email = await insertQueuedEmail(db, { accountId: account.id, senderId: sender.id, domainId: domain.id, from: sender.email, to, bcc });
  const n = email.deliveries.length;
  // As the daemon leaves a message all of whose deliveries were accepted.
  await db`update deliveries set status = 'accepted', attempt_count = 1 where email_id = ${email.id}`;
  await db`update emails set status = 'accepted', completed_at = now(), content_purged_at = now(), text_body = null where id = ${email.id}`;
  await db`update senders set accepted_count = accepted_count + ${n} where id = ${sender.id}`;
  await db`update account_usage set active_deliveries = active_deliveries - ${n} where account_id = ${account.id}`;
  return { accountId: account.id, senderId: sender.id, emailId: email.id, deliveries: email.deliveries };
}
