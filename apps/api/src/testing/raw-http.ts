import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * The test API on a port of its own, for requests supertest cannot make: a body sent as the
 * exact bytes given (supertest serializes a Buffer as JSON), or sent slowly, in parts; and for
 * clients that need a URL.
 */
export async function listenRaw(api: TestApi) {
  const server = createHttpServer(buildApi(api.deps)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    /** Where it listens, for clients of its own (fetch, the SDK). */
    url: `http://127.0.0.1:${port}`,
    /** A request whose body the caller writes and ends. */
    open: (method: string, path: string, headers: Record<string, string | number>) => http.request({ port, method, path, headers }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
