import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { isDatabaseUnavailable } from '@mailer/db';
import { apiKeyMatches, AppError, connectionSource, hashApiKey, isValidIdempotencyKey, isWellFormedApiKey, MAX_UNIQUE_RECIPIENTS, MIME_MAX_BYTES, validationError } from '@mailer/domain';
import { acceptEmail, submittedEmailBodySchema } from '@mailer/operations';
import type { SubmissionDependencies } from './container';
import { readSubmission } from './read-submission';
import { replyForError, smtpReply, temporaryFailure } from './smtp-replies';
import type { TlsMaterial } from './tls-material';

/** The one user name; the password is a sending key. */
export const SUBMISSION_USER = 'mailer';

/** What a session authenticated as. */
interface SubmissionUser {
  accountId: string;
  keyId: string;
  /** Authenticated with the test key: its messages are simulated (docs/api-decisions.md, "Test mode"). */
  test: boolean;
}

/** `to[1]`, `content.html`: a schema problem's path in the request's own terms. */
const issuePath = (path: readonly PropertyKey[]) =>
  path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '') || '(message)';

/**
 * The SMTP submission listener (docs/api-decisions.md, "SMTP submission"), one per port:
 * STARTTLS (`implicitTls: false`) or implicit TLS. AUTH PLAIN or LOGIN, only over TLS, as
 * `mailer` with a sending key (live or test); then each message is read into the send-email request and
 * handed to the same intake operation as POST /v1/emails (validation, sender policy, plan
 * limits, idempotency and durable storage before the `250`). Only CRLF.CRLF ends the data
 * (smtp-server's reader), so no bare-LF sequence can end a message early.
 */
export function createSubmissionServer(deps: SubmissionDependencies, tls: TlsMaterial, implicitTls: boolean): SMTPServer {
  const { throttle, logger, metrics } = deps;
  const blocked = () => {
    metrics.throttled.inc();
    return smtpReply(421, '4.7.0', 'Too many failed authentications from your address, try again later');
  };
  const server = new SMTPServer({
    name: deps.config.smtp.heloName,
    banner: 'mailer submission',
    secure: implicitTls,
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authRequiredMessage: '5.7.0 Authentication required',
    allowInsecureAuth: false,
    size: MIME_MAX_BYTES,
    hideENHANCEDSTATUSCODES: false,
    hideREQUIRETLS: true,
    disabledCommands: implicitTls ? ['STARTTLS'] : [],
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 5_000,
    onConnect(session, callback) {
      callback(throttle.isBlocked(connectionSource(session.remoteAddress)) ? blocked() : undefined);
    },
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback) {
      const address = connectionSource(session.remoteAddress);
      if (throttle.isBlocked(address)) return callback(blocked());
      const refuse = () => {
        metrics.authFailures.inc();
        throttle.recordFailure(address);
        callback(smtpReply(535, '5.7.8', 'Authentication credentials invalid'));
      };
      const password = auth.password ?? '';
      if (auth.username !== SUBMISSION_USER || !isWellFormedApiKey(password)) return refuse();
      deps.keys.submit(hashApiKey(password)).then(
        (key) => {
          if (!key || key.kind !== 'sending' || !apiKeyMatches(password, key.keyHash)) return refuse();
          const user: SubmissionUser = { accountId: key.accountId, keyId: key.id, test: key.test };
          callback(null, { user });
        },
        (error: Error) => {
          logger.error('key lookup failed', { error: error.message });
          callback(smtpReply(454, '4.7.0', 'Temporary authentication failure'));
        },
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
      const chunks: Buffer[] = [];
      let bytes = 0;
      // Past the limit the rest is drained unread; smtp-server answers 552 5.3.4 at its end.
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MIME_MAX_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpReply(552, '5.3.4', 'Message exceeds the size limit'));
        const user = session.user as unknown as SubmissionUser;
        submit(deps, user, Buffer.concat(chunks), session.envelope.rcptTo.map((r) => r.address)).then(
          ({ emailId, replayed }) => {
            metrics.messages.inc({ result: replayed ? 'replayed' : 'accepted', code: 'none' });
            callback(null, `2.0.0 queued as ${emailId}`);
          },
          (error: unknown) => {
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
