import ipaddr from 'ipaddr.js';

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** Where a recipient domain's mail goes, from its MX answer alone. */
export type MxPlan = { kind: 'null_mx' } | { kind: 'hosts'; hosts: string[] };

/**
 * Orders MX hosts by preference, shuffled among equal preferences (RFC 5321 section
 * 5.1) so load spreads over them. A lone MX whose exchange is the root (RFC 7505 null
 * MX; node's resolver reports it as an empty exchange) means the domain accepts no mail.
 */
export function planMxHosts(records: readonly MxRecord[], random: () => number = Math.random): MxPlan {
  const named = records.filter((r) => r.exchange !== '' && r.exchange !== '.');
  if (named.length === 0 && records.length > 0) return { kind: 'null_mx' };
  const keyed = named.map((r) => ({ host: r.exchange.toLowerCase().replace(/\.$/, ''), priority: r.priority, tie: random() }));
  keyed.sort((a, b) => a.priority - b.priority || a.tie - b.tie);
  return { kind: 'hosts', hosts: [...new Set(keyed.map((k) => k.host))] };
}

/**
 * Whether the worker may open a connection to this address. An MX is attacker-controlled
 * input, so only global unicast addresses qualify: loopback, private, link-local, CGNAT,
 * multicast, unspecified, reserved, documentation and the v6 transition ranges that can
 * embed any of those are refused unless `allowPrivate` (ALLOW_PRIVATE_MX) is set.
 */
export function isDeliverableAddress(address: string, allowPrivate: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (allowPrivate) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}
