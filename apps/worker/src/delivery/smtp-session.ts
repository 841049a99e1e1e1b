import { PassThrough } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import SMTPConnection, { type SMTPConnectionEnvelope } from 'nodemailer/lib/smtp-connection';
import { daneAuthenticates, type TlsaRecord } from '@mailer/domain';
import { presentedCertificates } from './dane';

/**
 * How a session treats TLS: `require_tls` (TLS 1.2+, a certificate valid for the MX name),
 * `dane` (TLS 1.2+, a certificate the host's TLSA records authenticate) or `opportunistic`.
 */
export type TlsPolicy = 'require_tls' | 'opportunistic' | 'dane';

export interface SessionTls {
  version: string;
  cipher: string;
  verified: boolean;
}

/** A local address of an egress pool and the HELO name it greets with (docs/api-decisions.md, "Providers and egress pools"). */
export interface EgressSource {
  address: string;
  heloName: string;
}

/** One MX address to talk to, under one sender's transport security policy. */
export interface SessionTarget {
  /** The MX host name: sent as SNI and the name a `require_tls` certificate must be valid for. */
  host: string;
  /** The address to connect to, resolved through the configured resolver. */
  address: string;
  port: number;
  policy: TlsPolicy;
  /** The local address to connect from, and its HELO name; absent: the machine's own and SMTP_HELO_NAME. */
  source?: EgressSource;
  /** Under `dane`: the host's usable TLSA records. */
  tlsa?: readonly TlsaRecord[];
}

export interface SessionSettings {
  heloName: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** How long the reply to the final dot is awaited (RFC 5321 section 4.5.3.2.6: 10 minutes). */
  dataTimeoutMs: number;
  /** CAs a `require_tls` certificate may chain to: the system's plus SMTP_CA_FILE. */
  trustedCa: string[];
}

export type NodemailerError = SMTPConnection.SMTPError;

/** Why no session could be set up with an address; the next address or MX is tried. */
export interface OpenFailure {
  kind: 'tls' | 'timeout' | 'unreachable' | 'aborted';
  /** The server's reply when it refused us with one (e.g. a 554 greeting); never shown to API clients. */
  reply?: string;
  message: string;
}

export interface RcptRejection {
  recipient: string;
  reply: string;
}

/** How one mail transaction ended; expected outcomes are values, not exceptions. */
export type SendOutcome =
  | { kind: 'sent'; rejected: RcptRejection[]; reply: string }
  | {
      kind: 'failed';
      rejected: RcptRejection[];
      error: NodemailerError;
      /** Whether the server answered RCPT TO for any recipient (accepting or refusing it). */
      recipientsAnswered: boolean;
      messageStarted: boolean;
      finalDotSent: boolean;
    }
  | { kind: 'aborted'; rejected: RcptRejection[]; finalDotSent: boolean };

const noop = () => undefined;

function tlsMode(policy: TlsPolicy, plain: boolean) {
  if (plain) return { ignoreTLS: true };
  if (policy !== 'opportunistic') return { requireTLS: true };
  return { opportunisticTLS: true };
}

function tlsOptions(policy: TlsPolicy, settings: SessionSettings) {
  switch (policy) {
    case 'require_tls':
      return { rejectUnauthorized: true, minVersion: 'TLSv1.2', ca: settings.trustedCa } as const;
    case 'dane':
      // The TLSA records, not the CAs, decide (checked once the handshake is done).
      return { rejectUnauthorized: false, minVersion: 'TLSv1.2', ca: settings.trustedCa } as const;
    case 'opportunistic':
      // Checked against the same CAs, to record whether it verified (SessionTls), never to refuse.
      return { rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0', ca: settings.trustedCa } as const;
  }
}

/**
 * An open SMTP connection (after EHLO and, when used, STARTTLS) that runs one mail
 * transaction at a time and can be reused for the next.
 */
export class SmtpSession {
  /** Why STARTTLS failed when this plain session is the opportunistic fallback; operator logs only. */
  tlsFailure?: string;
  /** Under `dane`: the TLSA records authenticated the server's certificate (the session is refused otherwise). */
  daneAuthenticated = false;
  /** Transactions that reached their final-dot reply on this session (for an operator's messages-per-connection limit). */
  messagesSent = 0;
  private ended = false;
  /** No transaction open: none began yet, or the last one ended with the reply to its final dot. */
  private betweenTransactions = true;

  constructor(
    private readonly conn: SMTPConnection,
    readonly target: SessionTarget,
    private readonly settings: SessionSettings,
  ) {
    conn.once('end', () => {
      this.ended = true;
    });
  }

  /**
   * The session's TLS once STARTTLS succeeded, null in clear: the protocol version, the
   * cipher and whether the certificate was authenticated: by the TLSA records under `dane`,
   * else by chaining to a trusted CA and being valid for the MX host name (checked whatever
   * the policy; only `require_tls` refuses a session without it).
   */
  get tls(): SessionTls | null {
    const socket = this.conn._socket as TLSSocket | undefined;
    if (!this.conn.secure || !socket || typeof socket.getProtocol !== 'function') return null;
    const verified = this.target.policy === 'dane' ? this.daneAuthenticated : socket.authorized === true;
    return { version: socket.getProtocol() ?? 'unknown', cipher: socket.getCipher()?.name ?? 'unknown', verified };
  }

  get usable(): boolean {
    return !this.ended && !this.conn.destroyed;
  }

  /**
   * Whether a pooled session can take the next transaction. After a transaction that ended
   * with its final-dot reply, MAIL FROM may follow at once (RFC 5321 section 4.1.4), so no
   * round trip is spent; otherwise (a transaction cut short) RSET clears it first, and a
   * session that does not answer RSET is not reused.
   */
  ready(): Promise<boolean> {
    if (!this.usable) return Promise.resolve(false);
    if (this.betweenTransactions) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onEnd = () => resolve(false);
      this.conn.once('end', onEnd);
      this.conn.reset((error) => {
        this.conn.off('end', onEnd);
        this.betweenTransactions = !error;
        resolve(!error);
      });
    });
  }

  /**
   * MAIL FROM, one RCPT TO per recipient, DATA with the message. The final dot's reply is
   * awaited for `dataTimeoutMs`; every other reply for `commandTimeoutMs`.
   */
  send(from: string, recipients: string[], message: Buffer, signal: AbortSignal): Promise<SendOutcome> {
    const envelope = { from, to: recipients, size: message.length } as SMTPConnectionEnvelope;
    const rejected = () => (envelope.rejectedErrors ?? []).map((e) => ({ recipient: e.recipient ?? '', reply: e.response ?? '' }));
    // nodemailer keeps its recipient bookkeeping on the envelope it is given.
    const recipientsAnswered = () => (envelope.accepted?.length ?? 0) + (envelope.rejectedErrors?.length ?? 0) > 0;
    let messageStarted = false;
    let finalDotSent = false;
    this.betweenTransactions = false;
    const source = new PassThrough();
    // nodemailer pipes the message in (which resumes it) only after the server's 354 to DATA.
    source.once('resume', () => {
      messageStarted = true;
      this.coalesceMessageWrites();
    });
    source.once('end', () => {
      finalDotSent = true;
      this.socketTimeout(this.settings.dataTimeoutMs);
    });

    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        this.conn.off('end', onEnd);
        this.socketTimeout(this.settings.commandTimeoutMs);
        this.betweenTransactions = outcome.kind === 'sent';
        if (outcome.kind === 'sent') this.messagesSent++;
        resolve(outcome);
      };
      const onAbort = () => {
        settle({ kind: 'aborted', rejected: rejected(), finalDotSent });
        // Mid-transaction: drop the connection; a QUIT now could land inside the message.
        this.conn.close();
      };
      // nodemailer reports a failure through the send callback; 'end' alone (nothing reported) is a lost connection.
      const onEnd = () =>
        setImmediate(() =>
          settle({
            kind: 'failed',
            rejected: rejected(),
            error: Object.assign(new Error('connection closed'), { code: 'ECONNECTION' }),
            recipientsAnswered: recipientsAnswered(),
            messageStarted,
            finalDotSent,
          }),
        );
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.conn.once('end', onEnd);
      this.conn.send(envelope, source, (error, info) => {
        if (error) settle({ kind: 'failed', rejected: rejected(), error, recipientsAnswered: recipientsAnswered(), messageStarted, finalDotSent });
        else settle({ kind: 'sent', rejected: rejected(), reply: info.response });
      });
      source.end(message);
    });
  }

  /**
   * Ends an idle session politely (QUIT) when it is still open; resolves once the connection
   * is closed (after the reply to QUIT, or the command timeout).
   */
  close(): Promise<void> {
    if (!this.usable) return Promise.resolve();
    const ended = new Promise<void>((resolve) => this.conn.once('end', () => resolve()));
    try {
      this.conn.quit();
    } catch {
      this.conn.close();
    }
    return ended;
  }

  /**
   * nodemailer's data stream writes the message and then its final dot, each a write of its own
   * that wakes the peer: the socket is corked until the loop's next turn, by which both are
   * written, and they leave in one (docs/api-decisions.md, "Delivery"). A message larger than
   * the socket's buffer goes on as the peer drains it.
   */
  private coalesceMessageWrites() {
    const socket = this.conn._socket;
    if (!socket || socket.destroyed) return;
    socket.cork();
    setImmediate(() => socket.uncork());
  }

  private socketTimeout(ms: number) {
    const socket = this.conn._socket;
    if (socket && !socket.destroyed) socket.setTimeout(ms);
  }
}

/**
 * Connects to one address and completes EHLO and STARTTLS as the policy demands:
 * - `require_tls`: STARTTLS is mandatory, TLS 1.2 or later, and the certificate must
 *   chain to a trusted CA and be valid for the MX host name; otherwise no session (and
 *   so not one byte of the message) — failure kind `tls`.
 * - `dane`: as `require_tls`, but the certificate must match the host's TLSA records
 *   (daneAuthenticates) instead of chaining to a CA.
 * - `opportunistic`: STARTTLS when offered, any certificate and protocol version; plain
 *   text when not offered or refused, and a new plain connection when the handshake fails.
 */
export async function openSession(target: SessionTarget, settings: SessionSettings, signal: AbortSignal): Promise<SmtpSession | OpenFailure> {
  const first = await connect(target, settings, false, signal);
  if (first instanceof SmtpSession || first.kind !== 'tls' || target.policy !== 'opportunistic') return first;
  const plain = await connect(target, settings, true, signal);
  if (plain instanceof SmtpSession) plain.tlsFailure = first.message;
  return plain;
}

function connect(target: SessionTarget, settings: SessionSettings, plain: boolean, signal: AbortSignal): Promise<SmtpSession | OpenFailure> {
  const conn = new SMTPConnection({
    host: target.address,
    port: target.port,
    servername: target.host,
    name: target.source?.heloName ?? settings.heloName,
    ...(target.source ? { localAddress: target.source.address } : {}),
    connectionTimeout: settings.connectTimeoutMs,
    greetingTimeout: settings.commandTimeoutMs,
    socketTimeout: settings.commandTimeoutMs,
    ...tlsMode(target.policy, plain),
    tls: tlsOptions(target.policy, settings),
    logger: false,
  });
  conn.on('error', noop);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: SmtpSession | OpenFailure) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const fail = (error: NodemailerError) => {
      settle(classifyOpenError(error, target.policy, conn.upgrading === true));
      conn.close();
    };
    const onAbort = () => {
      settle({ kind: 'aborted', message: 'aborted' });
      conn.close();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const onEnd = () => setImmediate(() => fail(Object.assign(new Error('connection closed'), { code: 'ECONNECTION' })));
    conn.once('error', fail);
    conn.once('end', onEnd);
    conn.connect((error) => {
      if (error) return fail(error);
      conn.off('error', fail);
      conn.off('end', onEnd);
      if (target.policy !== 'opportunistic' && !conn.secure) return fail(Object.assign(new Error('no TLS'), { code: 'ETLS' }));
      const session = new SmtpSession(conn, target, settings);
      if (target.policy === 'dane') {
        session.daneAuthenticated = daneVerified(conn._socket as TLSSocket, target);
        if (!session.daneAuthenticated) return fail(Object.assign(new Error('the certificate matches none of the TLSA records'), { code: 'ETLS' }));
      }
      settle(session);
    });
  });
}

/** `duringHandshake`: the error came while STARTTLS was upgrading the socket (certificate, version, cipher). */
function classifyOpenError(error: NodemailerError, policy: TlsPolicy, duringHandshake: boolean): OpenFailure {
  const base = { message: error.message, ...(error.response ? { reply: error.response } : {}) };
  if (error.code === 'ETLS' || duringHandshake) return { kind: 'tls', ...base };
  // With requireTLS, a server that cannot do EHLO cannot do STARTTLS either.
  if (policy !== 'opportunistic' && error.command === 'EHLO') return { kind: 'tls', ...base };
  if (error.code === 'ETIMEDOUT') return { kind: 'timeout', ...base };
  return { kind: 'unreachable', ...base };
}

/** Whether the TLSA records of a `dane` target authenticate the certificate its server presented. */
function daneVerified(socket: TLSSocket, target: SessionTarget): boolean {
  const certificates = presentedCertificates(socket, target.host, new Date());
  return certificates !== null && daneAuthenticates(target.tlsa ?? [], certificates);
}
