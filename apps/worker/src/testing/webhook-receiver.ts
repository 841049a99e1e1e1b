import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP receiver: it answers `status` after `delayMs` and keeps what it got. */
export interface Receiver {
  url: string;
  status: number;
  delayMs: number;
  received: { headers: IncomingHttpHeaders; body: string; at: number }[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = { status: 200, delayMs: 0, received: [] as Receiver['received'] } as Receiver;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body, at: Date.now() });
      setTimeout(() => res.writeHead(receiver.status).end('ok'), receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
