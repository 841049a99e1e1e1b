import { planMxHosts } from '@mailer/domain';
import type { DnsResolver } from './resolver';

/**
 * Where mail for a recipient domain goes (RFC 5321 section 5.1), as a value:
 * - `hosts`: MX hosts by preference (random among equals), or the domain itself when it
 *   has no MX but has addresses (implicit MX);
 * - `null_mx`: the domain publishes a null MX (RFC 7505) and accepts no mail;
 * - `no_mail_server`: the domain exists with neither MX nor A/AAAA records;
 * - `not_found`: NXDOMAIN;
 * - `temporary`: the resolver could not answer (SERVFAIL, timeout, refused).
 */
export type MailRoute =
  | { kind: 'hosts'; hosts: string[]; implicit: boolean }
  | { kind: 'null_mx' }
  | { kind: 'no_mail_server' }
  | { kind: 'not_found' }
  | { kind: 'temporary'; reason: string };

export async function resolveMailRoute(dns: DnsResolver, domain: string, signal?: AbortSignal): Promise<MailRoute> {
  const mx = await dns.query((r) => r.resolveMx(domain), signal);
  if (mx.kind === 'temporary') return mx;
  if (mx.kind === 'missing' && mx.nxdomain) return { kind: 'not_found' };
  if (mx.kind === 'found' && mx.values.length > 0) {
    const plan = planMxHosts(mx.values);
    return plan.kind === 'null_mx' ? plan : { kind: 'hosts', hosts: plan.hosts, implicit: false };
  }
  const addresses = await resolveHostAddresses(dns, domain, signal);
  if (addresses.kind === 'temporary') return addresses;
  if (addresses.kind === 'missing') return addresses.nxdomain ? { kind: 'not_found' } : { kind: 'no_mail_server' };
  return { kind: 'hosts', hosts: [domain], implicit: true };
}

export type HostAddresses = { kind: 'found'; addresses: string[] } | { kind: 'missing'; nxdomain: boolean } | { kind: 'temporary'; reason: string };

/**
 * The addresses of an MX host through the configured resolver (never the system's
 * getaddrinfo): IPv4 first, then IPv6. Found when either family has addresses; temporary
 * when a lookup failed and none were found.
 */
export async function resolveHostAddresses(dns: DnsResolver, host: string, signal?: AbortSignal): Promise<HostAddresses> {
  const [v4, v6] = await Promise.all([dns.query((r) => r.resolve4(host), signal), dns.query((r) => r.resolve6(host), signal)]);
  const addresses = [...(v4.kind === 'found' ? v4.values : []), ...(v6.kind === 'found' ? v6.values : [])];
  if (addresses.length > 0) return { kind: 'found', addresses };
  if (v4.kind === 'temporary') return v4;
  if (v6.kind === 'temporary') return v6;
  return { kind: 'missing', nxdomain: v4.kind === 'missing' && v4.nxdomain };
}
