import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's webhook endpoint: answers 204 at once and keeps, per event, how long
 * after the change it reports it arrived (the body's `timestamp` is when the delivery
 * was recorded).
 */
export interface BenchReceiver {
  url: string;
  delaysMs: number[];
  firstAt?: number;
  lastAt?: number;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const receiver: BenchReceiver = { url: '', delaysMs: [], close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = Date.now();
      receiver.firstAt ??= now;
      receiver.lastAt = now;
      receiver.delaysMs.push(now - Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }).timestamp));
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The p-th percentile (0..100) of the values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
