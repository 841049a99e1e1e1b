import { resolvePolicy, validateMx } from 'mailauth/lib/mta-sts';
import type { DnsResolver } from '@mailer/dns';
import { MTA_STS_MAX_AGE_SECONDS, MTA_STS_MODES } from '@mailer/domain';
import type { Logger } from '@mailer/logger';
import type { Redis } from '@mailer/queue';
import { fetchMtaStsPolicy, type FetchedPolicy, type PolicyFetchSettings } from './fetch-policy';

/** A recipient domain's MTA-STS policy in force, with the TXT `id` it was fetched under. */
export interface MtaStsPolicy extends FetchedPolicy {
  id: string;
}

/**
 * Whether an MX host matches one of the policy's `mx` patterns (RFC 8461 section 4.1), by
 * mailauth's matcher; a wildcard stands for one label only, which mailauth does not check.
 */
export function policyAllowsHost(policy: MtaStsPolicy, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return policy.mx.some((pattern) => {
    const result = validateMx(name, { mode: policy.mode, mx: [pattern], maxAge: policy.maxAgeSeconds });
    if (!result.valid) return false;
    return !pattern.startsWith('*.') || !name.slice(0, name.length - pattern.length + 1).includes('.');
  });
}

/** What the `_mta-sts` TXT lookup said: a policy id, no (valid) record, or no answer. */
type PolicyRecord = { kind: 'found'; id: string } | { kind: 'absent' } | { kind: 'temporary' };

/**
 * MTA-STS policies of recipient domains (docs/api-decisions.md, "Receivers' TLS policies"):
 * the `_mta-sts.<domain>` TXT record through the configured resolver, the policy fetched over
 * HTTPS when its `id` is not the one cached, and the cache in Redis, where every daemon sees
 * it, for the policy's `max_age` (at most a year). A cached policy stays in force while the
 * record is gone or unanswered and while a fetch fails (RFC 8461 section 5.1); without one,
 * mail goes as though the domain had no policy.
 */
export class MtaStsPolicies {
  private readonly fetching = new Map<string, Promise<MtaStsPolicy | null>>();

  constructor(
    private readonly deps: { dns: DnsResolver; redis: Redis; redisPrefix: string; fetch: PolicyFetchSettings; logger: Logger },
  ) {}

  async policyFor(domain: string): Promise<MtaStsPolicy | null> {
    const [record, cached] = await Promise.all([this.record(domain), this.cached(domain)]);
    if (record.kind !== 'found' || cached?.id === record.id) return cached;
    const key = `${domain}|${record.id}`;
    let fetch = this.fetching.get(key);
    if (!fetch) {
      fetch = this.refresh(domain, record.id, cached).finally(() => this.fetching.delete(key));
      this.fetching.set(key, fetch);
    }
    return fetch;
  }

  private async refresh(domain: string, id: string, cached: MtaStsPolicy | null): Promise<MtaStsPolicy | null> {
    const fetched = await fetchMtaStsPolicy(this.deps.dns, domain, this.deps.fetch);
    if (fetched.kind === 'failed') {
      this.deps.logger.warn('MTA-STS policy not fetched', { domain, reason: fetched.reason, cached_policy: cached !== null });
      return cached;
    }
    const policy = { id, ...fetched.policy };
    const ttlSeconds = Math.min(policy.maxAgeSeconds, MTA_STS_MAX_AGE_SECONDS);
    try {
      if (ttlSeconds > 0) await this.deps.redis.set(this.key(domain), JSON.stringify(policy), 'EX', ttlSeconds);
      else await this.deps.redis.del(this.key(domain));
    } catch (error) {
      // Redis away: this delivery still follows the policy; the next one fetches it again.
      this.deps.logger.warn('MTA-STS policy not cached', { domain, error: (error as Error).message });
    }
    return policy;
  }

  /** Through mailauth's record parser, fed by the configured resolver. */
  private async record(domain: string): Promise<PolicyRecord> {
    const resolver = async (name: string) => {
      const answer = await this.deps.dns.txt(name);
      if (answer.kind === 'found') return answer.values.map((value) => [value]);
      throw Object.assign(new Error(`no TXT answer for ${name}`), { code: answer.kind === 'missing' ? 'ENODATA' : 'ETEMPORARY' });
    };
    try {
      const id = await resolvePolicy(domain, { resolver });
      return id ? { kind: 'found', id } : { kind: 'absent' };
    } catch (error) {
      // Several STSv1 records are no valid record (RFC 8461 section 3.1).
      return (error as { code?: string }).code === 'multi_sts_records' ? { kind: 'absent' } : { kind: 'temporary' };
    }
  }

  private async cached(domain: string): Promise<MtaStsPolicy | null> {
    try {
      const stored = await this.deps.redis.get(this.key(domain));
      return stored ? decodePolicy(stored) : null;
    } catch {
      return null;
    }
  }

  private key(domain: string): string {
    return `${this.deps.redisPrefix}:mta-sts:${domain}`;
  }
}

function decodePolicy(stored: string): MtaStsPolicy | null {
  const value = JSON.parse(stored) as { id?: unknown; mode?: unknown; mx?: unknown; maxAgeSeconds?: unknown };
  if (typeof value.id !== 'string' || typeof value.maxAgeSeconds !== 'number' || !Array.isArray(value.mx)) return null;
  const mode = MTA_STS_MODES.find((m) => m === value.mode);
  if (!mode) return null;
  return { id: value.id, mode, mx: value.mx.filter((m): m is string => typeof m === 'string'), maxAgeSeconds: value.maxAgeSeconds };
}
