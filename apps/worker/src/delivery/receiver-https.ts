import https from 'node:https';
import { resolveHostAddresses, type DnsResolver } from '@mailer/dns';
import { isDeliverableAddress } from '@mailer/domain';

/** How the daemons reach a host a recipient domain names over HTTPS (MTA-STS policy hosts, TLS report endpoints). */
export interface ReceiverHttpsSettings {
  /** CAs the host's certificate may chain to: the system's plus MTA_STS_CA_FILE. */
  trustedCa: string[];
  /** ALLOW_PRIVATE_MX: hosts on non-public addresses are reached only then, like MX hosts. */
  allowPrivate: boolean;
}

export interface ReceiverRequest {
  host: string;
  port: number;
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer;
  /** A longer answer body is cut off and the request fails. */
  maxBytes: number;
  signal: AbortSignal;
}

export type ReceiverResponse = { status: number; body: Buffer } | { error: string };

/**
 * One HTTPS request to a host named by a recipient domain, handled as attacker-influenced
 * input, like an MX: resolved through the configured resolver, reached only on an address an MX
 * may have, with a trusted certificate valid for the host name, TLS 1.2+, no redirect followed
 * (a 3xx is returned as it is), an answer body of at most `maxBytes`, until `signal` aborts.
 */
export async function requestReceiver(dns: DnsResolver, settings: ReceiverHttpsSettings, request: ReceiverRequest): Promise<ReceiverResponse> {
  const found = await resolveHostAddresses(dns, request.host, request.signal);
  if (found.kind !== 'found') return { error: `${request.host} was not resolved (${found.kind})` };
  const address = found.addresses.find((a) => isDeliverableAddress(a, settings.allowPrivate));
  if (!address) return { error: `${request.host} has no public address` };
  return new Promise((resolve) => {
    const outgoing = https.request(
      {
        host: address,
        port: request.port,
        servername: request.host,
        path: request.path,
        method: request.method,
        headers: { host: request.host, 'user-agent': 'mailer/1', ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) },
        ca: settings.trustedCa,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        agent: false,
        signal: request.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) {
            response.destroy();
            return resolve({ error: `the answer is larger than ${request.maxBytes} bytes` });
          }
          chunks.push(chunk);
        });
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.once('error', (error) => resolve({ error: error.message }));
      },
    );
    outgoing.once('error', (error) => resolve({ error: request.signal.aborted ? 'timed out' : error.message }));
    outgoing.end(request.body);
  });
}
