import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postMessages } from './post-messages';

describe('postMessages (the delivery benchmark load generator)', () => {
  let server: Server;
  let url: string;
  let handle: (request: IncomingMessage, body: string, response: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => handle(request, body, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options = { path: '/v1/emails', connections: 4, headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, timeoutMs: 5_000 };

  it('sends exactly the amount, each with its own Idempotency-Key, and counts answers by status', async () => {
    const keys = new Set<string>();
    let seen = 0;
    handle = (request, body, response) => {
      const n = ++seen;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/emails');
      expect(request.headers.authorization).toBe('Bearer k');
      expect(JSON.parse(body)).toEqual({ to: ['a@example.test'], subject: 'é' });
      keys.add(String(request.headers['idempotency-key']));
      // Every fifth is refused; bodies of different lengths, some in several writes.
      const padding = ' '.repeat((n % 3) * 1000);
      response.writeHead(n % 5 === 0 ? 429 : 202, { 'content-type': 'application/json', 'content-length': String(2 + padding.length) });
      response.write('{');
      setImmediate(() => response.end(`${padding}}`));
    };
    const result = await postMessages({ ...options, url, amount: 50, body: JSON.stringify({ to: ['a@example.test'], subject: 'é' }) });
    expect(seen).toBe(50);
    expect(keys.size).toBe(50);
    expect(result).toEqual({ accepted: 40, refused: 10 });
  });

  it('fails the run when the server closes a connection instead of answering', async () => {
    handle = (request) => request.socket.destroy();
    await expect(postMessages({ ...options, url, amount: 3, body: '{}' })).rejects.toThrow(/closed a connection/);
  });
});
