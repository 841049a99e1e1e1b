import { isIPv6 } from 'node:net';

/**
 * What one per-address connection cap counts: an IPv4 address (an IPv4-mapped IPv6 address
 * counts as its IPv4 one), or an IPv6 /64, the block one host or site usually holds, so that
 * its addresses do not each get a cap of their own.
 */
export function connectionSource(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Open connections per source, each refused past `max` (INBOUND_MAX_CONNECTIONS_PER_ADDRESS). */
export interface ConnectionLimit {
  /** Counts a new session's connection, or answers false when its source already holds `max`. */
  open(sessionId: string, remoteAddress: string): boolean;
  /** Forgets a session's connection (any session: those refused or never counted are ignored). */
  close(sessionId: string): void;
}

export function createConnectionLimit(max: number): ConnectionLimit {
  const open = new Map<string, number>();
  const sourceOf = new Map<string, string>();
  return {
    open(sessionId, remoteAddress) {
      const source = connectionSource(remoteAddress);
      const count = open.get(source) ?? 0;
      if (count >= max) return false;
      open.set(source, count + 1);
      sourceOf.set(sessionId, source);
      return true;
    },
    close(sessionId) {
      const source = sourceOf.get(sessionId);
      if (source === undefined) return;
      sourceOf.delete(sessionId);
      const count = open.get(source)! - 1;
      if (count > 0) open.set(source, count);
      else open.delete(source);
    },
  };
}
