import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { returnPathDeliveryExists } from '@mailer/db';
import { readReturnPathRecipient } from '@mailer/domain';
import { connectionBackstop, createConnectionLimit } from '@mailer/operations';
import type { InboundDependencies } from './container';
import type { RecipientRefusal } from './metrics';
import { applyReport } from './reports/apply-report';

/** Return-path recipients one message may have; a report names one, a few cover forwarding. */
export const MAX_RECIPIENTS = 10;

/** An SMTP reply to a command, as smtp-server sends it (`responseCode`). */
const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * The inbound SMTP listener (docs/api-decisions.md, "Return path"): it takes mail only for
 * return-path addresses (`b-<token>@<RETURN_PATH_LABEL>.<domain>`) whose token verifies and
 * names a delivery of that active domain (and for INBOUND_FEEDBACK_ADDRESS when set), so it
 * relays nothing: anything else is 550 at RCPT, one reply whatever the domain, and only a
 * verified token reaches the database. It reads each message as a DSN or complaint and
 * applies it before answering (a database failure is a 451: the sender retries). Bounded:
 * message size (SIZE, 552 beyond), connections in all and per address (421 4.7.0
 * beyond), messages parsed at once (the others wait), recipients, idle time; no AUTH,
 * no STARTTLS (reports carry nothing secret and senders do not require it). Errors in a
 * session end that session, never the process.
 */
export function createInboundServer(deps: InboundDependencies): SMTPServer {
  const { inbound, returnPath } = deps.config;
  const caps = { perAddress: inbound.maxConnectionsPerAddress, total: inbound.maxConnections };
  const connections = createConnectionLimit(caps);
  const server = new SMTPServer({
    name: returnPath.inboundHost,
    banner: 'mailer return path',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    size: inbound.maxMessageBytes,
    maxClients: connectionBackstop(caps),
    socketTimeout: inbound.socketTimeoutMs,
    closeTimeout: 5_000,
    onConnect(session, callback) {
      if (connections.open(session.id, session.remoteAddress)) return callback();
      deps.metrics.refusedConnections.inc();
      callback(reply(421, `4.7.0 ${returnPath.inboundHost} Too many connections, try again later`));
    },
    onClose(session) {
      connections.close(session.id);
    },
    onRcptTo(address, session, callback) {
      const refuse = (reason: RecipientRefusal) => {
        deps.metrics.refusedRecipients.inc({ reason });
        callback(reason === 'too_many' ? reply(452, 'Too many recipients') : reply(550, 'No such user here'));
      };
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return refuse('too_many');
      if (address.address.toLowerCase() === inbound.feedbackAddress) return callback();
      const recipient = readReturnPathRecipient(deps.returnPathKey, address.address, returnPath.label);
      if (recipient.kind !== 'verified') return refuse(recipient.kind);
      returnPathDeliveryExists(deps.db, recipient.deliveryId, recipient.domain).then(
        (exists) => (exists ? callback() : refuse('unknown')),
        (error: Error) => {
          deps.logger.error('recipient check failed', { error: error.message });
          callback(reply(451, 'Temporary failure, try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      // Past the limit the rest is drained unread, and the message refused at its end.
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= inbound.maxMessageBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded || bytes > inbound.maxMessageBytes) return callback(reply(552, 'Message exceeds the size limit'));
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        applyReport(deps, Buffer.concat(chunks), recipients).then(
          () => callback(null, 'OK'),
          (error: Error) => {
            deps.logger.error('report not applied', { error: error.message });
            callback(reply(451, 'Temporary failure, try again later'));
          },
        );
      });
    },
  });
  server.on('error', (error) => deps.logger.warn('inbound session error', { error: error.message }));
  return server;
}

/** Listens on INBOUND_PORT (0: any free port); resolves with the port bound. */
export async function listenInbound(server: SMTPServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return (server.server.address() as { port: number }).port;
}
