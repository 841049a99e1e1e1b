import { Resolver } from 'node:dns/promises';
import type { DnsAnswer } from '@mailer/domain';

export interface DnsResolverOptions {
  /** `host:port` entries (IP addresses); empty means the system resolver. */
  servers: readonly string[];
  /** Per-query timeout of one try. */
  timeoutMs: number;
  tries?: number;
}

export interface DnsResolver {
  /**
   * Runs one query on its own resolver, so that aborting `signal` cancels exactly this
   * query. Errors become values: NXDOMAIN and NODATA are `missing`, anything else
   * (SERVFAIL, timeout, refused, cancelled, unknown) is `temporary`.
   */
  query<T>(run: (resolver: Resolver) => Promise<T[]>, signal?: AbortSignal): Promise<DnsAnswer<T>>;
  /** TXT records at `name`, each record's strings joined, following CNAMEs up to MAX_CNAME_HOPS. */
  txt(name: string, signal?: AbortSignal): Promise<DnsAnswer<string>>;
  /** The exchange host names of the MX records at `name`. */
  mx(name: string, signal?: AbortSignal): Promise<DnsAnswer<string>>;
  /** The target of the CNAME record at `name`. */
  cname(name: string, signal?: AbortSignal): Promise<DnsAnswer<string>>;
}

/** A longer chain is treated as no record: it is a loop or a misconfiguration, not a slow answer. */
export const MAX_CNAME_HOPS = 8;
const DEFAULT_TRIES = 2;
const AUTHORITATIVE_ABSENCE = new Set(['ENOTFOUND', 'ENODATA']);

function classify<T>(error: unknown, signal: AbortSignal | undefined): DnsAnswer<T> {
  const code = (error as { code?: string } | undefined)?.code;
  if (code && AUTHORITATIVE_ABSENCE.has(code)) return { kind: 'missing', nxdomain: code === 'ENOTFOUND' };
  if (signal?.aborted) return { kind: 'temporary', reason: 'deadline_exceeded' };
  return { kind: 'temporary', reason: code ?? 'unknown' };
}

/** The resolver for domain checks and MX lookups, as configured by DNS_SERVERS and DNS_TIMEOUT. */
export function createDnsResolver(options: DnsResolverOptions): DnsResolver {
  const newResolver = () => {
    const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries ?? DEFAULT_TRIES });
    if (options.servers.length > 0) resolver.setServers([...options.servers]);
    return resolver;
  };
  // A malformed server list fails here, at boot, rather than on the first check.
  newResolver();

  async function query<T>(run: (resolver: Resolver) => Promise<T[]>, signal?: AbortSignal): Promise<DnsAnswer<T>> {
    if (signal?.aborted) return { kind: 'temporary', reason: 'deadline_exceeded' };
    const resolver = newResolver();
    const cancel = () => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return { kind: 'found', values: await run(resolver) };
    } catch (error) {
      return classify(error, signal);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  async function txt(name: string, signal?: AbortSignal, hops = 0): Promise<DnsAnswer<string>> {
    const answer = await query((r) => r.resolveTxt(name), signal);
    if (answer.kind === 'found' && answer.values.length > 0) return { kind: 'found', values: answer.values.map((chunks) => chunks.join('')) };
    if (answer.kind === 'temporary' || (answer.kind === 'missing' && answer.nxdomain)) return answer;
    // The name exists without TXT records: a CNAME whose target the server did not resolve for us is followed here.
    const alias = await query((r) => r.resolveCname(name), signal);
    if (alias.kind === 'temporary') return alias;
    const target = alias.kind === 'found' ? alias.values[0] : undefined;
    if (!target || hops >= MAX_CNAME_HOPS) return { kind: 'missing', nxdomain: false };
    return txt(target, signal, hops + 1);
  }

  async function mx(name: string, signal?: AbortSignal): Promise<DnsAnswer<string>> {
    const answer = await query((r) => r.resolveMx(name), signal);
    return answer.kind === 'found' ? { kind: 'found', values: answer.values.map((record) => record.exchange) } : answer;
  }

  return { query, txt: (name, signal) => txt(name, signal), mx, cname: (name, signal) => query((r) => r.resolveCname(name), signal) };
}
