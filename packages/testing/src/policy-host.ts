import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import path from 'node:path';

/**
 * A real HTTPS server on loopback standing in for the MTA-STS policy hosts `mta-sts.<name>.sts.test`
 * (one server, answering by Host header), with the policy test CA's certificate. What each host
 * answers is the test's choice: a policy, a status, a redirect, an oversized body, or silence.
 */
const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'policy');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

/** The CA of the policy hosts' certificate (and of `expired.tls.test`'s); the worker trusts it through MTA_STS_CA_FILE. */
export const POLICY_CA_FILE = path.join(FIXTURES, 'ca.pem');

/** A JSON schema of RFC 8460's aggregate report, written from the RFC's field definitions (section 4.4). */
export const TLS_REPORT_SCHEMA_FILE = path.resolve(__dirname, '..', 'fixtures', 'tlsrpt', 'report.schema.json');

/** A receiver of TLS reports (`rua=https://reports.sts.test:<port>/…`) on loopback, with the policy test CA's certificate. */
export interface TestReportReceiver {
  port: number;
  received: Array<{ path: string; contentType: string | undefined; body: Buffer }>;
  close(): Promise<void>;
}

export async function startTestReportReceiver(host = '127.0.0.1'): Promise<TestReportReceiver> {
  const received: TestReportReceiver['received'] = [];
  const server: Server = createServer({ key: fixture('reports.key'), cert: fixture('reports.pem') }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
      response.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type PolicyAnswer =
  | { kind: 'policy'; body: string }
  | { kind: 'status'; status: number }
  | { kind: 'redirect'; location: string }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'silent' };

export interface TestPolicyHost {
  port: number;
  /** What `mta-sts.<domain>` answers from now on; a host never set answers 404. */
  answer(domain: string, answer: PolicyAnswer): void;
  /** Requests for `/.well-known/mta-sts.txt` that reached each host, by host name. */
  fetches(domain: string): number;
  close(): Promise<void>;
}

/** An MTA-STS policy file (RFC 8461 section 3.2). */
export function mtaStsPolicy(mode: 'enforce' | 'testing' | 'none', mx: string[], maxAgeSeconds = 86_400): string {
  return ['version: STSv1', `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), `max_age: ${maxAgeSeconds}`, ''].join('\r\n');
}

export async function startTestPolicyHost(host = '127.0.0.1'): Promise<TestPolicyHost> {
  const answers = new Map<string, PolicyAnswer>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ key: fixture('policy.key'), cert: fixture('policy.pem') }, (request, response) => {
    const name = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const domain = name.replace(/^mta-sts\./, '');
    if (request.url !== '/.well-known/mta-sts.txt') return response.writeHead(404).end();
    counts.set(domain, (counts.get(domain) ?? 0) + 1);
    const answer = answers.get(domain) ?? { kind: 'status', status: 404 };
    switch (answer.kind) {
      case 'policy':
        return response.writeHead(200, { 'content-type': 'text/plain' }).end(answer.body);
      case 'status':
        return response.writeHead(answer.status).end();
      case 'redirect':
        return response.writeHead(302, { location: answer.location }).end();
      case 'oversized':
        return response.writeHead(200, { 'content-type': 'text/plain' }).end(`version: STSv1\r\n${'#'.repeat(answer.bytes)}`);
      case 'silent':
        return undefined;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    answer: (domain, answer) => answers.set(domain.toLowerCase(), answer),
    fetches: (domain) => counts.get(domain.toLowerCase()) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
