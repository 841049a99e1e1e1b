import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { daysSinceEpoch, INBOUND_MAIL_MAX_BYTES, INBOUND_MAX_RECIPIENTS, readReturnPathRecipient, readUnsubscribeRecipient, routeKey } from '@mailer/domain';
import {
  connectionBackstop,
  createConnectionLimit,
  matchInboundRoute,
  returnPathDeliveryExists,
  type RoutedRecipient,
} from '@mailer/operations';
import type { InboundDependencies } from './container';
import { receiveMail, UnreadableMailError } from './mail/receive-mail';
import type { RecipientRefusal } from './metrics';
import type { TlsMaterial } from './tls-material';
import { applyReport } from './reports/apply-report';
import { applyUnsubscribes } from './reports/apply-unsubscribe';

/** Return-path recipients one message may have; a report names one, a few cover forwarding. */
export const MAX_RECIPIENTS = 10;

/** An SMTP reply to a command, as smtp-server sends it (`responseCode`), its text opening with the enhanced status code. */
const reply = (code: number, enhanced: string, message: string) => Object.assign(new Error(`${enhanced} ${message}`), { responseCode: code });
const temporaryFailure = () => reply(451, '4.3.0', 'Temporary failure, try again later');

/**
 * A recipient RCPT took: a return-path (or feedback) address, an unsubscribe address (the
 * delivery its token names), or an address a route receives.
 */
type TakenAddress = SMTPServerAddress & { route?: RoutedRecipient; unsubscribe?: string };

/**
 * The inbound SMTP listener (docs/api-decisions.md, "Return path" and "Inbound mail"). It takes
 * mail only for (1) return-path addresses (`b-<token>@<RETURN_PATH_LABEL>.<domain>`) whose token
 * verifies and names a delivery of that active domain, and INBOUND_FEEDBACK_ADDRESS when set: read
 * as DSNs and complaints; (2) the mailto: addresses of List-Unsubscribe (`u-<token>@<RETURN_PATH_LABEL>.<domain>`)
 * whose link token verifies and names a delivery of that active domain: each unsubscribes its
 * delivery's recipient, whatever the message says (docs/api-decisions.md, "Unsubscribe"); and (3) addresses an enabled route of a domain with verified ownership
 * and receiving matches, within its account's rolling-window limit (`452 4.2.1` beyond): stored
 * and handed to the application. Anything else is `550 5.1.1` at RCPT, one reply whatever the
 * address, so it relays nothing and never bounces later. Each message is applied or stored
 * before the final reply (a database failure is a 451: the sender retries). Bounded: message
 * size (SIZE 25 MiB; a report only INBOUND_MAX_MESSAGE_BYTES, 552 beyond), recipients (50; 10
 * return-path ones), connections in all and per address (421 4.7.0 beyond),
 * messages parsed at once (the others wait), idle time. STARTTLS is offered; no AUTH. Only
 * CRLF.CRLF ends the data (smtp-server's reader), so no bare-LF sequence can smuggle a second
 * message. Errors in a session end that session, never the process.
 */
export function createInboundServer(deps: InboundDependencies, tls: TlsMaterial): SMTPServer {
  const { inbound, returnPath } = deps.config;
  const caps = { perAddress: inbound.maxConnectionsPerAddress, total: inbound.maxConnections };
  const connections = createConnectionLimit(caps);
  const refusal = (reason: RecipientRefusal) => {
    deps.metrics.refusedRecipients.inc({ reason });
    if (reason === 'too_many') return reply(452, '4.5.3', 'Too many recipients');
    if (reason === 'rate_limited') return reply(452, '4.2.1', 'Too many messages for this recipient, try again later');
    return reply(550, '5.1.1', 'No such user here');
  };
  const server = new SMTPServer({
    name: returnPath.inboundHost,
    banner: 'mailer inbound',
    authOptional: true,
    disabledCommands: ['AUTH'],
    key: tls.key,
    cert: tls.cert,
    hideENHANCEDSTATUSCODES: false,
    hideREQUIRETLS: true,
    disableReverseLookup: true,
    logger: false,
    size: INBOUND_MAIL_MAX_BYTES,
    maxClients: connectionBackstop(caps),
    socketTimeout: inbound.socketTimeoutMs,
    closeTimeout: 5_000,
    onConnect(session, callback) {
      if (connections.open(session.id, session.remoteAddress)) return callback();
      deps.metrics.refusedConnections.inc();
      callback(reply(421, '4.7.0', `${returnPath.inboundHost} Too many connections, try again later`));
    },
    onClose(session) {
      connections.close(session.id);
    },
    onRcptTo(address: TakenAddress, session, callback) {
      const taken = session.envelope.rcptTo as TakenAddress[];
      if (taken.length >= INBOUND_MAX_RECIPIENTS) return callback(refusal('too_many'));
      if (address.address.toLowerCase() === inbound.feedbackAddress) return callback();
      const failed = (error: Error) => {
        deps.logger.error('recipient check failed', { error: error.message });
        callback(temporaryFailure());
      };
      const unsubscribe = readUnsubscribeRecipient(deps.config.encryptionKey, address.address, returnPath.label, daysSinceEpoch(deps.now()));
      if (unsubscribe.kind !== 'other') {
        if (taken.filter((a) => !a.route).length >= MAX_RECIPIENTS) return callback(refusal('too_many'));
        // An unsubscribe address whose token does not verify is refused as a forged return-path address is.
        if (unsubscribe.kind !== 'verified') return callback(refusal('forged'));
        return void returnPathDeliveryExists(deps.db, unsubscribe.deliveryId, unsubscribe.domain).then((exists) => {
          if (!exists) return callback(refusal('unknown'));
          address.unsubscribe = unsubscribe.deliveryId;
          callback();
        }, failed);
      }
      const recipient = readReturnPathRecipient(deps.returnPathKey, address.address, returnPath.label);
      if (recipient.kind === 'other') {
        const key = routeKey(address.address);
        if (!key) return callback(refusal('other'));
        const windowStart = new Date(deps.now().getTime() - inbound.rateLimit.windowMs);
        return void matchInboundRoute(deps.db, key, windowStart).then((route) => {
          if (!route) return callback(refusal('other'));
          if (route.receivedInWindow >= inbound.rateLimit.messages) return callback(refusal('rate_limited'));
          address.route = route;
          callback();
        }, failed);
      }
      if (taken.filter((a) => !a.route).length >= MAX_RECIPIENTS) return callback(refusal('too_many'));
      if (recipient.kind !== 'verified') return callback(refusal(recipient.kind));
      returnPathDeliveryExists(deps.db, recipient.deliveryId, recipient.domain).then((exists) => callback(exists ? undefined : refusal('unknown')), failed);
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      // Past the limit the rest is drained unread, and the message refused at its end.
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= INBOUND_MAIL_MAX_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        const taken = session.envelope.rcptTo as TakenAddress[];
        const routed = taken.filter((a) => a.route).map((a) => ({ address: a.address, route: a.route! }));
        const unsubscribes = taken.flatMap((a) => (a.unsubscribe ? [a.unsubscribe] : []));
        const reportRecipients = taken.filter((a) => !a.route && !a.unsubscribe).map((a) => a.address);
        const tooLarge = stream.sizeExceeded || bytes > INBOUND_MAIL_MAX_BYTES || (routed.length === 0 && bytes > inbound.maxMessageBytes);
        if (tooLarge) return callback(reply(552, '5.3.4', 'Message exceeds the size limit'));
        const raw = Buffer.concat(chunks);
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const peer = { remoteAddress: session.remoteAddress, helo: session.hostNameAppearsAs, mailFrom };
        Promise.all([
          routed.length > 0 ? receiveMail(deps, raw, peer, routed) : undefined,
          reportRecipients.length > 0 && bytes <= inbound.maxMessageBytes ? applyReport(deps, raw, reportRecipients) : undefined,
          unsubscribes.length > 0 ? applyUnsubscribes(deps, unsubscribes) : undefined,
        ]).then(
          ([ids]) => callback(null, ids ? `2.0.0 OK received as ${ids.join(' ')}` : '2.0.0 OK'),
          (error: Error) => {
            if (error instanceof UnreadableMailError) return callback(reply(550, '5.6.0', 'The message could not be read'));
            deps.logger.error('message not taken', { error: error.message });
            callback(temporaryFailure());
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
