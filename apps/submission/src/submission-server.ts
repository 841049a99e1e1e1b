import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { AppError, connectionSource, isValidIdempotencyKey, MAX_UNIQUE_RECIPIENTS, MIME_MAX_BYTES, validationError } from '@mailer/domain';
import { acceptEmail, connectionBackstop, isDatabaseUnavailable, submittedEmailBodySchema } from '@mailer/operations';
import { createAuthDeadline } from './auth-deadline';
import { authenticate, throttledReply, type SubmissionUser } from './authenticate';
import type { SubmissionDependencies } from './container';
import { readSubmission } from './read-submission';
import { replyForError, smtpReply, temporaryFailure, type SmtpReply } from './smtp-replies';
import type { TlsMaterial } from './tls-material';

/** `to[1]`, `content.html`: a schema problem's path in the request's own terms. */
const issuePath = (path: readonly PropertyKey[]) =>
  path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '') || '(message)';

/**
 * The SMTP submission listener (docs/api-decisions.md, "SMTP submission"), one per port:
 * STARTTLS (`implicitTls: false`) or implicit TLS. AUTH PLAIN or LOGIN, listed and taken only over
 * TLS, as `mailer` with a sending key (live or test); then each message is read into the
 * send-email request and handed to the same intake operation as POST /v1/emails (validation,
 * sender policy, plan limits, idempotency and durable storage before the `250`). Only CRLF.CRLF
 * ends the data (smtp-server's reader), so no bare-LF sequence can end a message early. Bounded:
 * sessions per address and in all (`deps.connections`, shared by both ports), the time to
 * authenticate, and the message data held at once per account and in all (`deps.bodyBudget`,
 * the API's rule).
 */
export function createSubmissionServer(deps: SubmissionDependencies, tls: TlsMaterial, implicitTls: boolean): SMTPServer {
  const { throttle, logger, metrics, connections } = deps;
  const deadline = createAuthDeadline(() => server, deps.config.submission.authTimeoutMs);
  const server: SMTPServer = new SMTPServer({
    name: deps.config.smtp.heloName,
    banner: 'mailer submission',
    secure: implicitTls,
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authRequiredMessage: '5.7.0 Authentication required',
    // AUTH before STARTTLS is 538 without reaching onAuth, and is not listed in that EHLO (patches/smtp-server+3.21.6.patch).
    allowInsecureAuth: false,
    size: MIME_MAX_BYTES,
    hideENHANCEDSTATUSCODES: false,
    hideREQUIRETLS: true,
    disabledCommands: implicitTls ? ['STARTTLS'] : [],
    disableReverseLookup: true,
    logger: false,
    maxClients: connectionBackstop(deps.config.submission.connections),
    closeTimeout: 5_000,
    onConnect(session, callback) {
      if (!connections.open(session.id, session.remoteAddress)) {
        metrics.refusedConnections.inc();
        return callback(smtpReply(421, '4.7.0', 'Too many connections, try again later'));
      }
      void throttle.check(connectionSource(session.remoteAddress)).then((verdict) => {
        if (verdict.blocked) return callback(throttledReply(deps));
        deadline.start(session.id);
        callback();
      });
    },
    onClose(session) {
      connections.close(session.id);
      deadline.end(session.id);
    },
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback) {
      authenticate(deps, auth, session.remoteAddress).then(
        (user) => {
          deadline.end(session.id);
          callback(null, { user });
        },
        (reply: SmtpReply) => callback(reply),
      );
    },
    onMailFrom(_address, session, callback) {
      // smtp-server refuses MAIL before AUTH already; this holds even if a session ever had AUTH disabled.
      if (!session.user) return callback(smtpReply(530, '5.7.0', 'Authentication required'));
      // The envelope sender is the service's own return path; what the client gives is ignored.
      callback();
    },
    onRcptTo(address, session, callback) {
      const keys = new Set(session.envelope.rcptTo.map((r) => r.address.toLowerCase()));
      if (!keys.has(address.address.toLowerCase()) && keys.size >= MAX_UNIQUE_RECIPIENTS) {
        return callback(smtpReply(452, '4.5.3', `Too many recipients: at most ${MAX_UNIQUE_RECIPIENTS} per message`));
      }
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const user = session.user as unknown as SubmissionUser;
      const hold = deps.bodyBudget.open(user.accountId);
      const chunks: Buffer[] = [];
      let bytes = 0;
      let refusal: AppError | undefined;
      let discarding = false;
      // Held as it arrives, as an HTTP body of unknown size. Past the size limit, or once a chunk
      // does not fit in the budget, the rest is drained unread and the message refused at its end
      // (552 5.3.4; 451 4.3.0 service_unavailable), what it held given back at once.
      stream.on('data', (chunk: Buffer) => {
        if (discarding) return;
        bytes += chunk.length;
        if (bytes <= MIME_MAX_BYTES) {
          try {
            hold.take(chunk.length);
            chunks.push(chunk);
            return;
          } catch (error) {
            refusal = error as AppError;
          }
        }
        discarding = true;
        drop();
      });
      const drop = () => {
        chunks.length = 0;
        hold.release();
      };
      // The client went away mid-message (smtp-server destroys the stream with an error).
      stream.once('error', drop);
      stream.on('end', () => {
        if (stream.sizeExceeded || bytes > MIME_MAX_BYTES) {
          drop();
          return callback(smtpReply(552, '5.3.4', 'Message exceeds the size limit'));
        }
        if (refusal) {
          metrics.messages.inc({ result: 'refused', code: refusal.code });
          return callback(replyForError(refusal));
        }
        submit(deps, user, Buffer.concat(chunks), session.envelope.rcptTo.map((r) => r.address)).then(
          ({ emailId, replayed }) => {
            hold.release();
            metrics.messages.inc({ result: replayed ? 'replayed' : 'accepted', code: 'none' });
            callback(null, `2.0.0 queued as ${emailId}`);
          },
          (error: unknown) => {
            hold.release();
            if (error instanceof AppError) {
              metrics.messages.inc({ result: 'refused', code: error.code });
              return callback(replyForError(error));
            }
            const unavailable = isDatabaseUnavailable(error);
            if (!unavailable) logger.error('submission failed', { account_id: user.accountId, error: (error as Error).message });
            metrics.messages.inc({ result: 'refused', code: unavailable ? 'service_unavailable' : 'internal_error' });
            callback(temporaryFailure());
          },
        );
      });
    },
  });
  server.on('error', (error) => logger.warn('submission session error', { error: error.message }));
  return server;
}

/** Reads, validates and accepts one message; resolves with its id (the first message's, on a replay). */
async function submit(deps: SubmissionDependencies, user: SubmissionUser, raw: Buffer, recipients: string[]): Promise<{ emailId: string; replayed: boolean }> {
  const submission = await readSubmission(raw, recipients);
  const idempotencyKey = submission.idempotencyKey ?? randomUUID();
  if (!isValidIdempotencyKey(idempotencyKey)) {
    submission.problems.push({ path: 'Idempotency-Key', message: 'the Idempotency-Key header, else the Message-ID, must hold 1 to 255 characters' });
  }
  if (submission.problems.length > 0) throw validationError(submission.problems, 'The message is invalid.');
  const parsed = submittedEmailBodySchema.safeParse(submission.body);
  if (!parsed.success) {
    throw validationError(parsed.error.issues.map((issue) => ({ path: issuePath(issue.path), message: issue.message })), 'The message is invalid.');
  }
  const result = await acceptEmail(deps, { owner: { accountId: user.accountId, test: user.test }, idempotencyKey, body: submission.body, drafts: [parsed.data], batch: false });
  const emailId = (result.response as { id: string }).id;
  deps.logger.info(result.replayed ? 'submission replayed' : 'submission accepted', { account_id: user.accountId, email_id: emailId });
  return { emailId, replayed: result.replayed };
}

/** Listens on a port (0: any free port); resolves with the port bound, rejects when it cannot be bound. */
export async function listenSubmission(server: SMTPServer, port: number, host: string): Promise<number> {
  server.listen(port, host);
  await once(server.server, 'listening');
  return (server.server.address() as AddressInfo).port;
}
