import { parsePolicy } from 'mailauth/lib/mta-sts';
import type { DnsResolver } from '@mailer/dns';
import { MTA_STS_MODES, type MtaStsMode } from '@mailer/domain';
import { requestReceiver, type ReceiverHttpsSettings } from '../receiver-https';

/** The bounds of a policy fetch (RFC 8461 section 3.3; docs/api-decisions.md, "Receivers' TLS policies"). */
export const POLICY_FETCH_TIMEOUT_MS = 10_000;
export const POLICY_MAX_BYTES = 64 * 1024;
export const POLICY_PATH = '/.well-known/mta-sts.txt';

export interface PolicyFetchSettings extends ReceiverHttpsSettings {
  /** 443; another port only in tests (MTA_STS_POLICY_PORT). */
  port: number;
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
 * Fetches `https://mta-sts.<domain>/.well-known/mta-sts.txt` with requestReceiver's protections
 * (the policy host is named by the recipient domain): a 200 (no redirect is followed), at most
 * POLICY_MAX_BYTES, all within POLICY_FETCH_TIMEOUT_MS.
 */
export async function fetchMtaStsPolicy(dns: DnsResolver, domain: string, settings: PolicyFetchSettings): Promise<PolicyFetch> {
  const answer = await requestReceiver(dns, settings, {
    host: `mta-sts.${domain}`,
    port: settings.port,
    path: POLICY_PATH,
    method: 'GET',
    maxBytes: POLICY_MAX_BYTES,
    signal: AbortSignal.timeout(POLICY_FETCH_TIMEOUT_MS),
  });
  if ('error' in answer) return failed(answer.error);
  if (answer.status !== 200) return failed(`the policy host answered ${answer.status}`);
  try {
    const parsed = parsePolicy(answer.body);
    const mode = MTA_STS_MODES.find((m) => m === parsed.mode);
    if (!mode || parsed.maxAge === undefined) return failed('invalid policy');
    return { kind: 'fetched', policy: { mode, mx: parsed.mx ?? [], maxAgeSeconds: parsed.maxAge } };
  } catch (error) {
    return failed(`invalid policy: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
}
