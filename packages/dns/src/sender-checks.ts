import { isIPv6 } from 'node:net';
import { spf } from 'mailauth/lib/spf';
import { reverseDnsName, type ReverseDnsObservation, type SpfEvaluation } from '@mailer/domain';
import type { RecordLookup } from './record-lookup';
import type { DnsResolver } from './resolver';

/**
 * What receivers see of one of the service's own egress addresses: its PTR names and, for
 * each, the name's addresses of the same family (A for IPv4, AAAA for IPv6), through the
 * configured resolver; forward confirmation is judged from it (complianceReport).
 */
export async function observeReverseDns(dns: DnsResolver, address: string, signal?: AbortSignal): Promise<ReverseDnsObservation> {
  // A PTR query of its own: node's `reverse` reports every failure, a SERVFAIL too, as ENOTFOUND.
  const ptr = await dns.query((r) => r.resolvePtr(reverseDnsName(address)), signal);
  const names = ptr.kind === 'found' ? ptr.values : [];
  const forward = await Promise.all(
    names.map(async (name) => ({ name, answer: await dns.query((r) => (isIPv6(address) ? r.resolve6(name) : r.resolve4(name)), signal) })),
  );
  return { address, ptr, forward };
}

/**
 * SPF (RFC 7208) of `envelopeDomain` for mail from `address`, evaluated by mailauth with its
 * lookups through the configured resolvers, as a receiver evaluates the MAIL FROM of the
 * service's mail; a failure of the evaluation itself is `temperror`.
 */
export async function evaluateSpf(lookup: RecordLookup, check: { address: string; envelopeDomain: string; heloName: string }): Promise<SpfEvaluation> {
  try {
    const verdict = await spf({ sender: `postmaster@${check.envelopeDomain}`, ip: check.address, helo: check.heloName, mta: check.heloName, resolver: lookup as never });
    return { address: check.address, result: verdict.status?.result ?? 'temperror' };
  } catch {
    return { address: check.address, result: 'temperror' };
  }
}
