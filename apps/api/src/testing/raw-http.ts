import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createHttpServer } from '../http/http-server';
import { buildApi } from '../server';
import type { TestApi } from './test-api';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Reads a whole answer. */
export async function readResponse(req: http.ClientRequest): Promise<RawResponse> {
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
}

/** A client on a socket of its own that writes bytes when told to, as a slow or stalling client does. */
export interface SocketClient {
  write(data: string | Buffer): void;
  /** Writes `data` every `everyMs` until the connection closes. */
  trickle(data: string | Buffer, everyMs: number): void;
  /** The status of the first answer; 0 when the connection closed without one. */
  status: Promise<number>;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
  destroy(): void;
}

function connectSocket(port: number): SocketClient {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<string>((resolve) => {
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve(received);
    });
  });
  const status = new Promise<number>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const line = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (line) resolve(Number(line[1]));
    });
    void closed.then(() => resolve(0));
  });
  const write = (data: string | Buffer) => {
    if (!socket.destroyed) socket.write(data);
  };
  return {
    write,
    trickle: (data, everyMs) => {
      timer = setInterval(() => write(data), everyMs);
    },
    status,
    closed,
    destroy: () => socket.destroy(),
  };
}

/**
 * The test API on a port of its own, for requests supertest cannot make: a body sent as the
 * exact bytes given (supertest serializes a Buffer as JSON), or sent slowly, in parts; and for
 * clients that need a URL.
 */
export async function listenRaw(api: TestApi) {
  const server = createHttpServer(buildApi(api.deps), api.config.http).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    /** Where it listens, for clients of its own (fetch, the SDK). */
    url: `http://127.0.0.1:${port}`,
    /** A request whose body the caller writes and ends. */
    open: (method: string, path: string, headers: Record<string, string | number>) => http.request({ port, method, path, headers }),
    /** A raw connection, for clients that break HTTP's pace: `head` is written at once. */
    connect: (head: string) => {
      const client = connectSocket(port);
      client.write(head);
      return client;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
