import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface PostMessagesOptions {
  /** The API's base URL (http only). */
  url: string;
  path: string;
  /** Keep-alive connections, each with one request in flight. */
  connections: number;
  /** Requests in all. */
  amount: number;
  headers: Record<string, string>;
  /** The JSON body every request carries. */
  body: string;
  /** A request unanswered for this long fails the run. */
  timeoutMs: number;
}

export interface PostMessagesResult {
  /** Requests answered 2xx. */
  accepted: number;
  /** Requests answered otherwise. */
  refused: number;
}

/**
 * The delivery benchmark's load generator: the same POST `amount` times, each with a fresh
 * Idempotency-Key, over keep-alive connections. It shares the 2 cores with what it measures,
 * as Postfix's injector (smtp-source, in C) does in the reference run, so it does as little as
 * it can: the request is three prepared buffers, and a response is read only for its status
 * and length. With autocannon, used before, the benchmark process spent 0.25 to 0.33 ms of CPU
 * a message here (it rebuilds each request for its new header and keeps latency histograms),
 * about a twentieth of the whole pipeline's; with this client about 0.1 ms. The intake
 * benchmark keeps autocannon for its latency percentiles.
 * A connection error or a timeout fails the run rather than being counted.
 */
export async function postMessages(options: PostMessagesOptions): Promise<PostMessagesResult> {
  const target = new URL(options.url);
  if (target.protocol !== 'http:') throw new Error(`postMessages speaks http only, not ${target.protocol}`);
  const body = Buffer.from(options.body);
  const head = Object.entries({ host: target.host, ...options.headers, 'content-length': String(body.length) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const prefix = Buffer.from(`POST ${options.path} HTTP/1.1\r\n${head}idempotency-key: `);
  const result: PostMessagesResult = { accepted: 0, refused: 0 };
  let issued = 0;
  const connection = async () => {
    const socket = await open(Number(target.port || 80), target.hostname);
    try {
      while (issued < options.amount) {
        issued++;
        socket.cork();
        socket.write(prefix);
        socket.write(`${randomUUID()}\r\n\r\n`);
        socket.write(body);
        socket.uncork();
        const status = await readResponse(socket, options.timeoutMs);
        if (status >= 200 && status < 300) result.accepted++;
        else result.refused++;
      }
    } catch (error) {
      // The run fails: the other connections send no more.
      issued = options.amount;
      throw error;
    } finally {
      socket.destroy();
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.connections, options.amount) }, connection));
  return result;
}

function open(port: number, host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host, noDelay: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The status of the one response the socket owes, once all of it (headers and Content-Length bytes of body) has arrived. */
function readResponse(socket: Socket, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let received: Buffer = Buffer.alloc(0);
    const finish = (error: Error | null, status?: number) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('close', onClose);
      if (error) reject(error);
      else resolve(status!);
    };
    const onClose = () => finish(new Error('the API closed a connection with a response outstanding'));
    const onData = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const headEnd = received.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const headText = received.toString('latin1', 0, headEnd);
      const status = Number(headText.slice(9, 12));
      const length = /\r\ncontent-length: *(\d+)/i.exec(headText)?.[1];
      if (length === undefined) return finish(new Error(`a response without Content-Length: ${headText.split('\r\n')[0]}`));
      const total = headEnd + HEAD_END.length + Number(length);
      if (received.length < total) return;
      if (received.length > total) return finish(new Error('the API sent more than the one response asked for'));
      finish(null, status);
    };
    const timer = setTimeout(() => finish(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.once('error', finish);
    socket.once('close', onClose);
  });
}
