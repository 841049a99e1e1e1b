import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP peer on a loopback address (127.0.0.x) whose behavior a test controls:
 * STARTTLS with the test CA's certificate, an untrusted one, TLS 1.1 only, a failing
 * handshake, or none;
 * chosen replies at MAIL, RCPT and DATA; a connection dropped before or after the final
 * dot; a final-dot reply that never comes; or a peer that never says anything.
 */
const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'tls');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

/** The test CA that signed the `*.tls.test` certificate; the worker trusts it through SMTP_CA_FILE. */
export const TEST_CA_FILE = path.join(FIXTURES, 'ca.pem');

/** The certificate the `starttls` peers present (for `*.tls.test`), for tests that pin it (DANE). */
export const TEST_MX_CERT_FILE = path.join(FIXTURES, 'mx.pem');

/**
 * `broken_handshake` offers STARTTLS, answers 220, then fails every TLS handshake; `expired`
 * presents `expired.tls.test`'s certificate of the policy test CA (see policy-host.ts), valid only in 2000.
 */
export type PeerTls = 'starttls' | 'untrusted' | 'tls1.1' | 'broken_handshake' | 'expired' | 'none';

export type DataBehavior =
  | { kind: 'accept' }
  /** A full reply line such as `554 5.7.1 Message rejected as spam`. */
  | { kind: 'reply'; reply: string }
  | { kind: 'drop_before_dot' }
  | { kind: 'drop_after_dot' }
  | { kind: 'never_answer' }
  | { kind: 'delay'; ms: number };

export interface PeerBehavior {
  tls: PeerTls;
  /** Never send a greeting (or anything else): a peer that accepts TCP and hangs. */
  silent: boolean;
  /** A reply refusing MAIL FROM, e.g. `451 4.3.0 Try later`; as a function, per session. */
  mailFrom?: string | ((sessionId: string) => string | undefined);
  /** A reply refusing one recipient at RCPT (several lines for a multi-line one), or undefined to accept it. */
  rcpt: (address: string) => string | undefined;
  data: DataBehavior;
}

export interface ReceivedMessage {
  from: string;
  to: string[];
  raw: Buffer;
  /** Whether the transaction ran over STARTTLS. */
  tls: boolean;
  sessionId: string;
  /** The client's source address and the name it greeted with (EHLO/HELO), as this peer saw them. */
  remoteAddress: string;
  helo: string;
  /** When the message was recorded (epoch ms). */
  at: number;
}

export interface TestSmtpServer {
  host: string;
  port: number;
  /** Change behavior between (or during) deliveries; takes effect on the next command. */
  behavior: PeerBehavior;
  messages: ReceivedMessage[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** The most connections that were open at once. */
  peakConnections(): number;
  /** Messages whose DATA was received in full (whatever the reply was). */
  dataReceived(): number;
  /**
   * Transactions in their DATA phase whose behavior (read as DATA begins) will answer them and
   * has not yet: once 0 after a switch to `never_answer`, every 250 this peer will give is given.
   */
  repliesPending(): number;
  /** The command verbs clients sent in plain text (with `tls: 'none'`; after STARTTLS they are not visible). */
  commands(): string[];
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

export interface TestSmtpServerOptions extends Partial<PeerBehavior> {
  /** A loopback address such as 127.0.0.2. */
  host: string;
  /** 0 picks a free port; every MX of a test shares one (the worker's SMTP_PORT). */
  port?: number;
  /** Counts this peer's transactions in their DATA phase, with those of every other peer given the same gauge. */
  transactions?: TransactionGauge;
}

/**
 * Transactions in their DATA phase at once, across the peers that share it, and the most
 * there were: what a sender's concurrency limit bounds. Open connections would overstate
 * it, as a peer sees a connection the client has already closed until its close event.
 */
export class TransactionGauge {
  private current = 0;
  private most = 0;

  enter(): void {
    this.most = Math.max(this.most, ++this.current);
  }

  leave(): void {
    this.current--;
  }

  peak(): number {
    return this.most;
  }
}

/**
 * The error smtp-server answers a command with. Several lines (`550-first\r\n550 last`) go out
 * as one multi-line reply: smtp-server writes a message given as an array line by line.
 */
function replyError(reply: string): Error & { responseCode: number } {
  const lines = reply.split(/\r?\n/);
  const match = /^(\d{3})[ -]?(.*)$/.exec(lines[0]!);
  if (!match) throw new Error(`not an SMTP reply: ${reply.slice(0, 80)}`);
  const error = Object.assign(new Error(match[2]), { responseCode: Number(match[1]) });
  if (lines.length > 1) Object.assign(error, { message: lines.map((line) => line.replace(/^\d{3}[ -]?/, '')) });
  return error;
}

/** The Message-ID header of a received message, angle brackets included (the service writes `<em_…@domain>`). */
export function messageIdOf(message: ReceivedMessage): string | undefined {
  return /^Message-ID: (.+)\r$/im.exec(message.raw.toString('latin1'))?.[1];
}

const VERBS = new Set(['EHLO', 'HELO', 'MAIL', 'RCPT', 'DATA', 'RSET', 'NOOP', 'QUIT', 'STARTTLS']);

/** Command verbs at line starts; message lines that happen to begin with one are rare enough for tests. */
function plainCommands(chunk: Buffer): string[] {
  return chunk
    .toString('latin1')
    .split('\r\n')
    .map((line) => line.split(/[ :]/, 1)[0]!.toUpperCase())
    .filter((verb) => VERBS.has(verb));
}

function tlsOptions(tls: PeerTls): Partial<SMTPServerOptions> {
  switch (tls) {
    case 'none':
      return { disabledCommands: ['STARTTLS'] };
    case 'untrusted':
      return { key: fixture('untrusted.key'), cert: fixture('untrusted.pem') };
    case 'tls1.1':
      return { key: fixture('mx.key'), cert: fixture('mx.pem'), minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' };
    case 'broken_handshake':
      // Only a PSK cipher and no PSK identity: no client can complete the handshake.
      return { key: fixture('mx.key'), cert: fixture('mx.pem'), maxVersion: 'TLSv1.2', ciphers: 'PSK-AES128-CBC-SHA' };
    case 'starttls':
      return { key: fixture('mx.key'), cert: fixture('mx.pem') };
    case 'expired':
      return { key: fixture('../policy/expired.key'), cert: fixture('../policy/expired.pem') };
  }
}

async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as { port: number }).port;
}

export async function startTestSmtpServer(options: TestSmtpServerOptions): Promise<TestSmtpServer> {
  const behavior: PeerBehavior = {
    tls: options.tls ?? 'starttls',
    silent: options.silent ?? false,
    mailFrom: options.mailFrom,
    rcpt: options.rcpt ?? (() => undefined),
    data: options.data ?? { kind: 'accept' },
  };
  const messages: ReceivedMessage[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  let peak = 0;
  let dataReceived = 0;
  const answering = new Set<string>();
  const commands: string[] = [];
  // Sessions in their DATA phase: each leaves the gauge once, at its reply or when it closes without one.
  const inData = new Set<string>();
  const leaveData = (sessionId: string) => {
    if (inData.delete(sessionId)) options.transactions?.leave();
  };

  const smtp = new SMTPServer({
    ...tlsOptions(behavior.tls),
    name: options.host,
    authOptional: true,
    disableReverseLookup: true,
    hideENHANCEDSTATUSCODES: true,
    logger: false,
    size: 30 * 1024 * 1024,
    onMailFrom(address, session, callback) {
      const reply = typeof behavior.mailFrom === 'function' ? behavior.mailFrom(session.id) : behavior.mailFrom;
      callback(reply ? replyError(reply) : null);
    },
    onRcptTo(address, _session, callback) {
      const reply = behavior.rcpt(address.address);
      callback(reply ? replyError(reply) : null);
    },
    onClose(session) {
      leaveData(session.id);
      answering.delete(session.id);
    },
    onData(stream, session: SMTPServerSession, reply) {
      inData.add(session.id);
      options.transactions?.enter();
      const callback: typeof reply = (error, message) => {
        leaveData(session.id);
        answering.delete(session.id);
        reply(error, message);
      };
      const data = behavior.data;
      if (data.kind !== 'never_answer') answering.add(session.id);
      const socket = [...smtp.connections].find((c) => c.id === session.id)?._socket;
      const chunks: Buffer[] = [];
      if (data.kind === 'drop_before_dot') {
        stream.once('data', () => socket?.destroy());
        stream.resume();
        return;
      }
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        dataReceived++;
        const raw = Buffer.concat(chunks);
        const record = () =>
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            tls: session.secure,
            sessionId: session.id,
            remoteAddress: session.remoteAddress,
            helo: session.hostNameAppearsAs,
            at: Date.now(),
          });
        switch (data.kind) {
          case 'accept':
            record();
            return callback(null, 'OK: queued');
          case 'delay':
            return setTimeout(() => {
              record();
              callback(null, 'OK: queued');
            }, data.ms);
          case 'reply':
            return callback(replyError(data.reply));
          case 'drop_after_dot':
            // The message arrived in full; the client never learns it.
            record();
            return socket?.destroy();
          case 'never_answer':
            return;
        }
      });
    },
  });
  smtp.on('error', () => undefined);

  // A silent peer is a bare TCP listener: it accepts and never writes a byte.
  const server: Server = behavior.silent ? createServer() : smtp.server;
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    peak = Math.max(peak, sockets.size);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    if (behavior.tls === 'none') socket.on('data', (chunk: Buffer) => commands.push(...plainCommands(chunk)));
  });
  const port = await listen(behavior.silent ? server : smtp.server, options.host, options.port ?? 0);

  const peer: TestSmtpServer = {
    host: options.host,
    port,
    behavior,
    messages,
    connections: () => accepted,
    peakConnections: () => peak,
    dataReceived: () => dataReceived,
    repliesPending: () => answering.size,
    commands: () => [...commands],
    async waitForMessages(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages at ${options.host}, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    close: () =>
      new Promise<void>((resolve) => {
        openPeers.delete(peer);
        for (const socket of sockets) socket.destroy();
        if (behavior.silent) server.close(() => resolve());
        else smtp.close(() => resolve());
      }),
  };
  openPeers.add(peer);
  return peer;
}

/**
 * Peers a test left open (it failed before its own close): closed after each test file, since
 * jest's process runs file after file and a listening peer would keep it alive.
 */
const openPeers = new Set<TestSmtpServer>();

export async function closeLeftoverPeers(): Promise<void> {
  await Promise.all([...openPeers].map((peer) => peer.close()));
}
