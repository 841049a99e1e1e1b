import { Resolver } from 'node:dns/promises';
import type { DnsResolverOptions } from './resolver';

/** A lookup shaped as `dns.promises.resolve(name, rrtype)`: what mailauth takes as its resolver. */
export type RecordLookup = (name: string, rrtype: string) => Promise<unknown>;

/**
 * Raw lookups through the configured resolvers (DNS_SERVERS, DNS_TIMEOUT), for libraries that
 * read DNS themselves (mailauth's SPF, DKIM, DMARC and ARC checks of received mail): errors
 * are node's (`ENOTFOUND`, `ENODATA`, …), which such libraries classify themselves.
 */
export function createRecordLookup(options: DnsResolverOptions): RecordLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries ?? 2 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}
