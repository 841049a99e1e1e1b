import type { DestinationLimitRule } from './destination-limits';

/**
 * A mailbox provider known by the MX hosts of its customers' domains (docs/api-decisions.md,
 * "Providers and egress pools"): every recipient domain whose MX hosts end in one of its
 * suffixes is one destination, the provider, whose limits hold across all those domains.
 */
export interface Provider {
  /** Lower case, `[a-z0-9-]`: shown by `queue destinations` and used as a metric label. */
  name: string;
  /** MX host suffixes, each matching the name itself or any name under it (`google.com`: `aspmx.l.google.com`). */
  suffixes: string[];
  connections?: number;
  messagesPerConnection?: number;
  messagesPerMinute?: number;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Whether `host` is `suffix` or a name under it (label-wise: `evilgoogle.com` is not under `google.com`). */
export function hostHasSuffix(host: string, suffix: string): boolean {
  const h = normalize(host);
  const s = normalize(suffix);
  return h === s || h.endsWith(`.${s}`);
}

/** The first provider (in the table's order) one of whose suffixes any of the MX hosts ends in. */
export function providerFor(providers: readonly Provider[], hosts: readonly string[]): Provider | undefined {
  return providers.find((p) => p.suffixes.some((suffix) => hosts.some((host) => hostHasSuffix(host, suffix))));
}

/**
 * The table the daemons use: the operator's entries first, so that a more specific suffix of
 * theirs is matched before a shipped one, then the shipped entries the operator did not name.
 * An operator entry with a shipped entry's name replaces it whole.
 */
export function mergeProviders(shipped: readonly Provider[], operator: readonly Provider[]): Provider[] {
  const named = new Set(operator.map((p) => p.name));
  return [...operator, ...shipped.filter((p) => !named.has(p.name))];
}

/** A provider's destination key; no MX host set has this form (a key names hosts, which never hold `:`). */
export function providerDestinationKey(provider: Pick<Provider, 'name'>): string {
  return `provider:${provider.name}`;
}

/** A provider's limits as a destination limit rule, its key naming it, so that the shared (Redis) limits count the provider as one. */
export function providerLimitRule(provider: Provider): DestinationLimitRule {
  return {
    pattern: providerDestinationKey(provider),
    ...(provider.connections !== undefined ? { connections: provider.connections } : {}),
    ...(provider.messagesPerConnection !== undefined ? { messagesPerConnection: provider.messagesPerConnection } : {}),
    ...(provider.messagesPerMinute !== undefined ? { messagesPerMinute: provider.messagesPerMinute } : {}),
  };
}
