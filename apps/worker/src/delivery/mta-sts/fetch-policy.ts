import https from 'node:https';
import { parsePolicy } from 'mailauth/lib/mta-sts';
import { resolveHostAddresses, type DnsResolver } from '@mailer/dns';
import { isDeliverableAddress, MTA_STS_MODES, type MtaStsMode } from '@mailer/domain';

/** The bounds of a policy fetch (RFC 8461 section 3.3; docs/api-decisions.md, "Receivers' TLS policies"). */
export const POLICY_FETCH_TIMEOUT_MS = 10_000;
export const POLICY_MAX_BYTES = 64 * 1024;
export const POLICY_PATH = '/.well-known/mta-sts.txt';

export interface PolicyFetchSettings {
  /** CAs a policy host's certificate may chain to: the system's plus MTA_STS_CA_FILE. */
  trustedCa: string[];
  /** 443; another port only in tests (MTA_STS_POLICY_PORT). */
  port: number;
  /** ALLOW_PRIVATE_MX: policy hosts on non-public addresses are reached only then, like MX hosts. */
  allowPrivate: boolean;
}

/** A policy as RFC 8461 section 3.2 defines it, validated by mailauth's parser. */
export interface FetchedPolicy {
  mode: MtaStsMode;
  mx: string[];
  maxAgeSeconds: number;
}

export type PolicyFetch = { kind: 'fetched'; policy: FetchedPolicy } | { kind: 'failed'; reason: string };

const failed = (reason: string): PolicyFetch => ({ kind: 'failed', reason });

/**
 * Fetches `https://mta-sts.<domain>/.well-known/mta-sts.txt`. The policy host is named by the
 * recipient domain, so its answer is handled as attacker-influenced input, like an MX: resolved
 * through the configured resolver and reached only on an address an MX may have, a certificate
 * valid for the host name, TLS 1.2+, a 200 (no redirect is followed), at most POLICY_MAX_BYTES,
 * all within POLICY_FETCH_TIMEOUT_MS.
 */
export async function fetchMtaStsPolicy(dns: DnsResolver, domain: string, settings: PolicyFetchSettings): Promise<PolicyFetch> {
  const host = `mta-sts.${domain}`;
  const deadline = AbortSignal.timeout(POLICY_FETCH_TIMEOUT_MS);
  const found = await resolveHostAddresses(dns, host, deadline);
  if (found.kind !== 'found') return failed(`the policy host was not resolved (${found.kind})`);
  const address = found.addresses.find((a) => isDeliverableAddress(a, settings.allowPrivate));
  if (!address) return failed('the policy host has no public address');
  const body = await get(host, address, settings, deadline);
  if (typeof body !== 'object') return failed(body);
  try {
    const parsed = parsePolicy(body);
    const mode = MTA_STS_MODES.find((m) => m === parsed.mode);
    if (!mode || parsed.maxAge === undefined) return failed('invalid policy');
    return { kind: 'fetched', policy: { mode, mx: parsed.mx ?? [], maxAgeSeconds: parsed.maxAge } };
  } catch (error) {
    return failed(`invalid policy: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
}

/** The body of a 200, or why there is none. */
function get(host: string, address: string, settings: PolicyFetchSettings, signal: AbortSignal): Promise<Buffer | string> {
  return new Promise((resolve) => {
    const request = https.request(
      {
        host: address,
        port: settings.port,
        servername: host,
        path: POLICY_PATH,
        method: 'GET',
        headers: { host, 'user-agent': 'mailer-mta-sts/1' },
        ca: settings.trustedCa,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        agent: false,
        signal,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.destroy();
          return resolve(`the policy host answered ${response.statusCode ?? 'nothing'}`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > POLICY_MAX_BYTES) {
            response.destroy();
            return resolve(`the policy is larger than ${POLICY_MAX_BYTES} bytes`);
          }
          chunks.push(chunk);
        });
        response.once('end', () => resolve(Buffer.concat(chunks)));
        response.once('error', (error) => resolve(error.message));
      },
    );
    request.once('error', (error) => resolve(signal.aborted ? 'the policy fetch timed out' : error.message));
    request.end();
  });
}
