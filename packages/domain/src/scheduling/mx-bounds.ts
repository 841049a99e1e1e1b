import { createHash } from 'node:crypto';

/**
 * How far one attempt at a destination goes (docs/api-decisions.md, "Scheduling"): at most
 * `hosts` MX hosts and `addresses` addresses in all, as Postfix's smtp_mx_session_limit and
 * smtp_mx_address_limit, so that an unreachable destination costs a bounded number of
 * connect timeouts.
 */
export const MX_ATTEMPT_LIMITS = { hosts: 2, addresses: 5 } as const;

export interface MxTarget {
  host: string;
  address: string;
}

/**
 * The (host, address) pairs one attempt tries, in order: hosts in MX order with their usable
 * addresses, hosts without any skipped (they cost no connection), cut at the limits.
 */
export function boundMxAttempt(
  hosts: readonly { host: string; addresses: readonly string[] }[],
  limits: { hosts: number; addresses: number } = MX_ATTEMPT_LIMITS,
): MxTarget[] {
  const targets: MxTarget[] = [];
  let hostsTried = 0;
  for (const { host, addresses } of hosts) {
    if (addresses.length === 0) continue;
    if (hostsTried === limits.hosts) break;
    hostsTried++;
    for (const address of addresses) {
      if (targets.length === limits.addresses) return targets;
      targets.push({ host, address });
    }
  }
  return targets;
}

/** MX hosts named in a destination key at most; a longer set is cut (its first hosts in name order still tell it apart). */
const KEY_HOSTS = 10;

/**
 * A destination is the set of MX hosts a recipient domain resolves to: recipient domains
 * sharing them share a destination. The key is that set, lower case, sorted, bounded.
 */
export function destinationKey(hosts: readonly string[]): string {
  return [...new Set(hosts.map((h) => h.toLowerCase()))].sort().slice(0, KEY_HOSTS).join(',');
}

/**
 * A destination's name where MX host names must not appear (metric labels, which never name
 * a host or address: an MX host can give a BCC recipient's domain away). `queue destinations`
 * lists it beside the hosts, for the operator to match them.
 */
export function destinationId(key: string): string {
  return `d_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}
