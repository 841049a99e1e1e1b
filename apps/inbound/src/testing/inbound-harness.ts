import { PassThrough } from 'node:stream';
import { createTransport } from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { loadConfig } from '@mailer/config';
import { createLogger } from '@mailer/logger';
import { createTestDatabase } from '@mailer/testing';
import { createContainer, type InboundDependencies } from '../container';
import { createInboundServer, listenInbound } from '../inbound-server';

/** What the listener answered an SMTP client: 250 with the message taken, or the refusal. */
export interface SendResult {
  accepted: boolean;
  responseCode: number | undefined;
}

export interface InboundHarness {
  deps: InboundDependencies;
  port: number;
  /** Sends a raw message over SMTP with a null envelope sender, as a DSN comes. */
  send(to: string[], raw: string | Buffer): Promise<SendResult>;
  /** The count of `mailer_inbound_reports_total` for these labels. */
  reportCount(kind: string, result: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The inbound listener's composition root on a free loopback port, against a database of
 * this test file's own (or the one `env.DATABASE_URL` names, shared with a delivery harness).
 */
export async function startInboundHarness(env: Record<string, string> = {}): Promise<InboundHarness> {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: env.DATABASE_URL ?? (await createTestDatabase()), INBOUND_PORT: '0', ...env });
  const deps = createContainer(config, { logger: createLogger({ level: 'error', service: 'inbound', stream: new PassThrough().resume() }) });
  const server: SMTPServer = createInboundServer(deps);
  const port = await listenInbound(server, 0, '127.0.0.1');
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
  return {
    deps,
    port,
    async send(to, raw) {
      try {
        await transport.sendMail({ envelope: { from: '', to }, raw });
        return { accepted: true, responseCode: 250 };
      } catch (error) {
        return { accepted: false, responseCode: (error as { responseCode?: number }).responseCode };
      }
    },
    async reportCount(kind, result) {
      const metric = await deps.metrics.reports.get();
      return metric.values.find((v) => v.labels.kind === kind && v.labels.result === result)?.value ?? 0;
    },
    async close() {
      transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.database.close();
    },
  };
}
