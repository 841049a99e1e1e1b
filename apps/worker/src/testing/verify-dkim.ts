import { Resolver } from 'node:dns/promises';
import { dkimVerify, type DKIMResult } from 'mailauth';

/**
 * Verifies a delivered message's DKIM signatures with an independent implementation
 * (mailauth), looking keys up in the test DNS server like a receiving MTA would.
 */
export async function verifyDkim(raw: Buffer, dnsAddress: string): Promise<DKIMResult[]> {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([dnsAddress]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, rrtype: string) => (rrtype === 'TXT' ? resolver.resolveTxt(name) : (resolver.resolve(name, rrtype) as Promise<string[]>)),
  });
  return result.results;
}
