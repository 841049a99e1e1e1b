import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver for webhooks: it keeps what it got, and when, and answers after `delayMs`
 * with the `status` set when the request arrived, so that a test that changes `status` once it
 * sees a request changes the answers to the next ones only.
 */
export interface WebhookReceiver {
  url: string;
  status: number;
  delayMs: number;
  received: { headers: IncomingHttpHeaders; body: string; at: number }[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = { status: 200, delayMs: 0, received: [] as WebhookReceiver['received'] } as WebhookReceiver;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const status = receiver.status;
      receiver.received.push({ headers: req.headers, body, at: Date.now() });
      setTimeout(() => res.writeHead(status).end('ok'), receiver.delayMs);
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
